import Inference
import Wire

// How a host's `error` reply reads to the caller. The names are SPEC.md's (section 6,
// "Inference through the relay"); the host's message is for logs and never carries prompt text.

extension AppMessage.ErrorCode {
    /// The spec's name; an unknown code is treated as `host_error` (SPEC.md, error codes).
    var name: String {
        switch self {
        case .modelUnavailable: "model_unavailable"
        case .busy: "busy"
        case .diverged: "diverged"
        case .cacheMiss: "cache_miss"
        case .revoked: "revoked"
        case .badRequest: "bad_request"
        case .tooLarge: "too_large"
        case .unsupported: "unsupported"
        default: "host_error"
        }
    }
}

extension AppMessage.InferenceError {
    /// The ordinary failure this error is for the caller (who falls back on-device).
    var asInferenceError: InferenceError {
        if code == .modelUnavailable { return .modelUnavailable(message) }
        return .remote(code: code.name, message: message)
    }
}
