import Foundation
import Inference

extension ManagedRuntime {
    /// The name the runtime lists `model` by: Ollama's tag is `latest` when none is given
    /// (docs/api.md "Model names"), so `llama3.2` is listed as `llama3.2:latest`.
    func canonical(_ model: String) -> String { kind == .ollama ? Self.ollamaName(model) : model }

    static func ollamaName(_ model: String) -> String {
        (model.split(separator: "/").last ?? "").contains(":") ? model : model + ":latest"
    }

    /// Ollama answers 404 to a model it does not have: said in our words, with the full name.
    func ollamaCall(_ method: String, _ path: String, _ body: [String: Any], what verb: String, _ model: String) async throws(Failure) {
        do { _ = try await call(method, path, body, what: "\(verb) \(model)") } catch where error.code == .modelUnavailable {
            throw Failure(code: .modelUnavailable, message: "the Ollama at \(url) has no model \(canonical(model).prefix(80)) to \(verb) "
                          + "(guest host models lists its models)")
        }
    }

    /// `POST /api/pull`, streamed: NDJSON lines `{status, digest, total, completed}` (one
    /// `completed` per layer, by digest: summed here so the laptop's bar only grows), an
    /// in-band `{"error"}`, and `{"status":"success"}` last. A stream that ends without the
    /// success (a cancel ends it as if whole) is not a pull.
    func ollamaPull(_ model: String, progress: Progress) async throws(Failure) {
        let r = try await open("POST", "/api/pull", ["model": model, "stream": true], what: "pull \(model)")
        var buffer: [UInt8] = []
        var layers: [String: (done: UInt64, total: UInt64)] = [:]
        var succeeded = false
        do {
            for try await piece in r.body {
                buffer += piece
                while let nl = buffer.firstIndex(of: 0x0A) {
                    let line = Array(buffer[..<nl]); buffer.removeSubrange(...nl)
                    guard let o = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { continue }
                    if o["error"] != nil {
                        throw Failure(code: .modelUnavailable, message: "the Ollama at \(url) could not pull \(canonical(model).prefix(80)): "
                                      + "its library has no such model, or the library is not reachable from the Homebase")
                    }
                    let status = o["status"] as? String ?? ""
                    if status == "success" { succeeded = true }
                    if let digest = o["digest"] as? String {
                        layers[digest] = (UInt64((o["completed"] as? NSNumber)?.int64Value ?? 0), UInt64((o["total"] as? NSNumber)?.int64Value ?? 0))
                    }
                    await progress(layers.values.reduce(0) { $0 + $1.done }, layers.values.reduce(0) { $0 + $1.total }, String(status.prefix(200)))
                }
            }
        } catch let f as Failure { throw f } catch {
            throw Failure(code: .hostError, message: "Ollama's pull stream ended early")
        }
        if Task.isCancelled { throw Failure(code: .hostError, message: "the pull of \(model.prefix(200)) was cancelled") }
        guard succeeded else {
            throw Failure(code: .hostError, message: "Ollama's pull stream of \(model.prefix(80)) ended before it said success: pull again")
        }
    }
}
