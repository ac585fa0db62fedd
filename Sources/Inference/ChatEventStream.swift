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
        } catch let e as InferenceError {
            out.finish(throwing: e)
        } catch is CancellationError {
            out.finish(throwing: InferenceError.cancelled)
        } catch {
            out.finish(throwing: InferenceError.malformed("unexpected failure: \(type(of: error))"))
        }
    }
    out.onTermination = { reason in
        // Only a consumer that gave up stops the request; a finished stream may still drain.
        if case .cancelled = reason { task.cancel() }
    }
    return events
}
