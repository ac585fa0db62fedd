import Inference
import Wire

// How a host's `error` reply reads to the caller: the code's name is the spec's
// (`AppMessage.ErrorCode.name`, beside the codes in Wire); the host's message is for logs and
// never carries prompt text.

extension AppMessage.InferenceError {
    /// The ordinary failure this error is for the caller (who falls back on-device).
    var asInferenceError: InferenceError {
        if code == .modelUnavailable { return .modelUnavailable(message) }
        return .remote(code: code.name, message: message)
    }
}
