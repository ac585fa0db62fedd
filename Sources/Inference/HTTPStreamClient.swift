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
        try await send(request, sink: nil)
    }

    /// As `send`, but a 2xx body goes to `sink` on the loop's thread as it is read, and the
    /// response's `body` yields nothing: it only ends, or fails, when the transfer does (await
    /// it for the outcome; cancelling that wait aborts the transfer as before). Any other status
    /// keeps its body on `body`, for `requireSuccess`.
    func send(_ request: HTTPStreamRequest, into sink: HTTPBodySink) async throws -> HTTPStreamResponse {
        try await send(request, sink: sink)
    }

    private func send(_ request: HTTPStreamRequest, sink: HTTPBodySink?) async throws -> HTTPStreamResponse {
        let transfer = try CurlRequestBuilder.transfer(for: request, sink: sink)
        let loop = self.loop
        sink?.attach(HTTPTransferControl(loop, transfer))
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
