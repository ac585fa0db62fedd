import Foundation

/// The probe's small JSON requests: status plus the decoded body, and failures turned into the
/// probe's own sentences.
struct ProbeHTTP: Sendable {
    let http = HTTPStreamClient()
    let baseURL: String
    let headers: [HTTPHeader]
    let timeouts: HTTPTimeouts

    struct Answer {
        var status: Int
        /// The body as JSON, nil when it is not JSON.
        var json: Any?
        var object: [String: Any]? { json as? [String: Any] }
    }

    /// GET or POST `url`. Every failure to get an answer becomes a `ProbeStop` at `step`.
    func call(_ url: String, method: String = "GET", json body: [String: Any]? = nil,
              step: ProbeFailure.Step) async throws -> Answer {
        var hs = headers
        var bytes: [UInt8]?
        if let body {
            bytes = [UInt8](try JSONSerialization.data(withJSONObject: body))
            hs.append(HTTPHeader("Content-Type", "application/json"))
        }
        do {
            let r = try await http.send(HTTPStreamRequest(method: method, url: url, headers: hs, body: bytes, timeouts: timeouts))
            let data = try await r.collect(limit: 8 << 20)
            return Answer(status: r.status, json: try? JSONSerialization.jsonObject(with: Data(data)))
        } catch let e as InferenceError {
            throw ProbeStop(step: step == .identify ? .connect : step, message: sentence(for: e))
        }
    }

    private func sentence(for e: InferenceError) -> String {
        switch e {
        case .unreachable(let why): "nothing answers at \(baseURL) (\(why)): is the engine running?"
        case .timeout: "\(baseURL) accepted the connection but did not answer in time: is the engine stuck?"
        default: "\(baseURL) failed mid-answer (\(e)): is it an inference engine?"
        }
    }
}

/// Ends a probe early with a failure (internal: the public result is `ProbeResult.failure`).
struct ProbeStop: Error {
    let failure: ProbeFailure
    init(step: ProbeFailure.Step, message: String) { failure = ProbeFailure(step: step, message: message) }
}

/// Reading loosely-typed JSON.
extension Dictionary where Key == String, Value == Any {
    func string(_ key: String) -> String? { (self[key] as? String).flatMap { $0.isEmpty ? nil : $0 } }
    func int(_ key: String) -> Int? { (self[key] as? NSNumber)?.intValue }
    func object(_ key: String) -> [String: Any]? { self[key] as? [String: Any] }
    func objects(_ key: String) -> [[String: Any]]? { self[key] as? [[String: Any]] }
}
