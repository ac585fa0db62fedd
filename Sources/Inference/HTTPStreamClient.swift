import CCurl

/// Streaming HTTP/1.1 and HTTP/2 client on libcurl: the head first, then the body as chunks.
///
/// All requests share one curl multi handle on one thread (see `CurlLoop`). Cancelling the task
/// that awaits `send` or reads the body closes the connection at once, so an engine stops
/// generating and frees its slot.
public struct HTTPStreamClient: Sendable {
    private let loop: CurlLoop

    public init() { loop = CurlLoop.shared }

    /// Sends the request and returns as soon as the status line and headers are in, whatever the
    /// status. Throws `.unreachable` when no answer came (refused, DNS, TLS, connect timeout),
    /// `.timeout` when the head did not arrive within `firstByte`, `.cancelled`.
    public func send(_ request: HTTPStreamRequest) async throws -> HTTPStreamResponse {
        let transfer = try CurlRequestBuilder.transfer(for: request)
        let loop = self.loop
        transfer.onBodyTermination { [weak transfer] in
            if let transfer { loop.cancel(transfer) }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { waiter in
                transfer.headWaiter = waiter
                loop.start(transfer)
            }
        } onCancel: {
            loop.cancel(transfer)
        }
    }
}
