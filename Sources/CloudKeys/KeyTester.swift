import Inference
import Signing

/// The zero-token key test: `GET /v1/models` with the key (Bearer for OpenAI; `x-api-key` and
/// `anthropic-version` for Anthropic). Lists models, generates nothing, costs nothing.
public struct KeyTester: Sendable {
    public enum Outcome: Sendable, Equatable, CustomStringConvertible {
        /// 200.
        case valid
        /// 401.
        case invalid
        /// Any other status, as it is (403, 429, 529...), with the server's short message.
        case other(status: Int, message: String)
        /// No answer (DNS, refused, TLS, timeout).
        case unreachable(String)

        public var description: String {
            switch self {
            case .valid: "valid"
            case .invalid: "invalid (401)"
            case .other(let s, let m): "HTTP \(s): \(m)"
            case .unreachable(let m): "not tested: \(m)"
            }
        }
    }

    /// Base URLs (tests point them at a local server).
    public var openAIBaseURL: String
    public var anthropicBaseURL: String
    public var timeouts: HTTPTimeouts

    public init(openAIBaseURL: String = OpenAIProvider.defaultBaseURL,
                anthropicBaseURL: String = AnthropicProvider.defaultBaseURL,
                timeouts: HTTPTimeouts = HTTPTimeouts(connect: .seconds(5), firstByte: .seconds(15), idle: .seconds(15))) {
        self.openAIBaseURL = openAIBaseURL; self.anthropicBaseURL = anthropicBaseURL; self.timeouts = timeouts
    }

    public func test(_ p: CloudProvider, key: SecretBytes) async -> Outcome {
        let k = key.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        let (base, headers): (String, [HTTPHeader]) = switch p {
        case .openAI: (openAIBaseURL, [HTTPHeader("Authorization", "Bearer \(k)")])
        case .anthropic: (anthropicBaseURL, AnthropicProvider.headers(key: k))
        }
        var root = base
        while root.hasSuffix("/") { root.removeLast() }
        if !root.hasSuffix("/v1") { root += "/v1" }
        do {
            let r = try await HTTPStreamClient().send(HTTPStreamRequest(url: root + "/models", headers: headers, timeouts: timeouts))
            switch r.status {
            case 200:
                _ = try? await r.collect(limit: 8 << 20)
                return .valid
            case 401:
                _ = try? await r.collect(limit: 64 << 10)
                return .invalid
            default:
                do { try await r.requireSuccess() } catch InferenceError.http(let s, let m) { return .other(status: s, message: m) }
                return .other(status: r.status, message: "")
            }
        } catch let e as InferenceError {
            return .unreachable(e.description)
        } catch {
            return .unreachable("\(type(of: error))")
        }
    }
}
