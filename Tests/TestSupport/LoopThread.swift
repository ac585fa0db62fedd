import Dispatch
import Synchronization
import Transport

/// An event loop on its own thread, shut down by `stop()`.
public final class LoopThread: @unchecked Sendable {
    public let loop: EventLoop
    public init() throws {
        loop = try EventLoop()
        try loop.start()
    }
    public func stop() { loop.shutdown(); loop.join() }

    /// Runs `body` on the loop thread and returns its result (throws if the loop does not run
    /// it within `limit`: a hang guard).
    public func sync<T: Sendable>(limit: DispatchTimeInterval = .seconds(30),
                                  _ body: @escaping @Sendable () throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let box = Mutex<Result<T, any Error>?>(nil)
        loop.execute {
            let r = Result { try body() }
            box.withLock { $0 = r }
            done.signal()
        }
        guard done.wait(timeout: .now() + limit) == .success else { throw SetupError("loop did not run the work") }
        return try box.withLock { $0! }.get()
    }
}
