/// Takes a 2xx response body on the curl loop's thread, as libcurl reads it
/// (`HTTPStreamClient.send(_:into:)`): a client that parses there saves a thread hand-off per read.
/// Must never block: the thread serves every transfer of the process.
protocol HTTPBodySink: AnyObject, Sendable {
    /// Called once, before the transfer starts.
    func attach(_ control: HTTPTransferControl)
    /// The next bytes of the body (valid only during the call).
    func receive(_ bytes: UnsafeRawBufferPointer) -> HTTPBodySinkVerdict
}

enum HTTPBodySinkVerdict: Equatable {
    /// Taken (or deliberately discarded).
    case taken
    /// Not taken: the transfer pauses, and these bytes come again after `control.resume()`.
    /// The loop's stall limit does not run while paused (the reader is slow, not the engine).
    case pause
    /// Stop: the connection is closed (the transfer ends as `.interrupted`).
    case abort
}

/// What a sink may do to its transfer from any thread.
struct HTTPTransferControl: Sendable {
    let resume: @Sendable () -> Void

    init(resume: @escaping @Sendable () -> Void) { self.resume = resume }

    init(_ loop: CurlLoop, _ transfer: CurlTransfer) {
        resume = { [weak transfer] in if let transfer { loop.resume(transfer) } }
    }
}
