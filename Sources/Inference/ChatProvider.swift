// A brain that answers chat requests: the engine client, the cloud clients, the relay-routed
// Homebase, the on-device llama-server. The router builds one per call and never caches it.

/// Which kind of brain a provider is; shown in `status`, logs and response metadata.
public enum BrainKind: String, Sendable, Equatable, Codable {
    case onDevice = "on-device"
    case ownHomebase = "homebase"
    case joinedHomebase = "joined-homebase"
    case localEndpoint = "local-endpoint"
    case openAI = "openai"
    case anthropic = "anthropic"
    case floor = "none"

    /// Who the reader is waiting for ("waiting for the Homebase…").
    public var waitingName: String {
        switch self {
        case .ownHomebase: "the Homebase"
        case .joinedHomebase: "the shared Homebase"
        case .onDevice: "the on-device model"
        case .openAI: "OpenAI"
        case .anthropic: "Anthropic"
        case .localEndpoint: "the local endpoint"
        case .floor: "an answer"
        }
    }
}

public protocol ChatProvider: Sendable {
    var brain: BrainKind { get }
    /// Streams the answer. Ordinary failures are thrown as `InferenceError` from the stream (a
    /// relayed Homebase throws Routing's `BrainFailure`);
    /// a stream finishing without `.done` must be treated as `.interrupted` by the caller.
    func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error>
}

/// Why a brain could not answer. All of these are "ordinary": the router's caller falls back.
/// A relayed Homebase's failures (its error codes, the watchdog rungs) are Routing's
/// `BrainFailure`, which wraps these for every other brain.
public enum InferenceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Connection refused, DNS, TLS: the runtime was not reached.
    case unreachable(String)
    /// HTTP status other than 200 (401, 429, 5xx...), with the server's short message.
    case http(status: Int, message: String)
    /// An error reported inside a 200 stream (OpenAI `error`, Anthropic `event: error`, Ollama `{"error"}`).
    case inBand(String)
    /// The stream ended before its terminator (`[DONE]`, `message_stop`, final chunk).
    case interrupted
    /// A watchdog rung fired (accept, first output, stall).
    case timeout(String)
    /// The model is not installed/advertised there.
    case modelUnavailable(String)
    /// The response could not be parsed.
    case malformed(String)
    /// The request was cancelled by the caller.
    case cancelled
    /// The brain cannot take a part of the request (an option its API has no name for): named,
    /// never dropped.
    case unsupported(String)

    public var description: String {
        switch self {
        case .unreachable(let m): "runtime unreachable: \(m)"
        case .http(let s, let m): "HTTP \(s): \(m)"
        case .inBand(let m): "error in stream: \(m)"
        case .interrupted: "stream ended before its terminator"
        case .timeout(let m): "timed out: \(m)"
        case .modelUnavailable(let m): "model unavailable: \(m)"
        case .malformed(let m): "malformed response: \(m)"
        case .cancelled: "cancelled"
        case .unsupported(let m): "not supported by this brain: \(m)"
        }
    }
}
