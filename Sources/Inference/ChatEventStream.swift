/// The events `body` writes, produced in a task that the consumer's cancel stops: how an HTTP
/// provider turns its request into `stream(_:)`. `body` finishes the stream itself; a throw ends
/// it with the `InferenceError`, `.cancelled`, or `.malformed` naming only the error's type.
func chatEventStream(
    _ body: @escaping @Sendable (AsyncThrowingStream<ChatEvent, Error>.Continuation) async throws -> Void
) -> AsyncThrowingStream<ChatEvent, Error> {
    let (events, out) = AsyncThrowingStream.makeStream(of: ChatEvent.self)
    let task = Task {
        do {
            try await body(out)
        } catch {
            out.finish(throwing: InferenceError.streamEnd(error))
        }
    }
    out.onTermination = { reason in
        // Only a consumer that gave up stops the request; a finished stream may still drain.
        if case .cancelled = reason { task.cancel() }
    }
    return events
}

extension InferenceError {
    /// How a provider's stream ends on `error`: an `InferenceError` as it is, a cancel as
    /// `.cancelled`, anything else `.malformed` naming only the error's type.
    static func streamEnd(_ error: Error) -> InferenceError {
        switch error {
        case let e as InferenceError: e
        case is CancellationError: .cancelled
        default: .malformed("unexpected failure: \(type(of: error))")
        }
    }
}
