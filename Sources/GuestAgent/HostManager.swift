import Basics
import Courier
import Synchronization
import Sealing
import Signing
import Wire

/// `guest host …` through the relay: one sealed `manage-request` to a Homebase, its
/// `manage-progress` handed to the caller as it comes, then the `manage-result` or the host's
/// `error` (SPEC.md "Managing the host's models"). No fallback: this is about that machine.
public struct HostManager: Sendable {
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case unreachable(String)
        /// Nothing from the Homebase for this long (progress restarts the wait).
        case timeout(Duration)
        case interrupted(String)
        /// The host's `error`: its code's spec name and its message.
        case host(code: String, message: String)

        public var description: String {
            switch self {
            case .unreachable(let why): "the Homebase is not reachable: \(why)"
            case .timeout(let d): "the Homebase sent nothing for \(d) (--timeout)"
            case .interrupted(let why): "the Homebase did not answer: \(why)"
            case .host("not_owner", let message): "refused (not_owner): \(message)"
            case .host(let code, let message): "the Homebase answered \(code): \(message)"
            }
        }
    }

    public static let defaultTimeout: Duration = .seconds(60)

    public let hostKey: PublicKey
    let courier: Courier
    /// The host's record when the courier's directory may not hold it (a joined Homebase's).
    let record: DeviceRecord?
    public let timeout: Duration

    public init(hostKey: PublicKey, courier: Courier, record: DeviceRecord? = nil, timeout: Duration = HostManager.defaultTimeout) {
        self.hostKey = hostKey; self.courier = courier; self.record = record; self.timeout = timeout
    }

    public func run(_ action: AppMessage.ManageAction, model: String = "", runtime: String = "",
                    progress: @Sendable (AppMessage.ManageProgress) -> Void = { _ in }) async -> Result<AppMessage.ManageResult, Failure> {
        guard let host = record ?? courier.directory.record(for: hostKey) else {
            return .failure(.unreachable("no device record for Homebase \(shortKey(hostKey))"))
        }
        let id = Bytes16(unchecked: randomBytes(count: Bytes16.count))
        let (outcome, replies) = await courier.sendManageRequest(.init(requestID: id, action: action, model: model, runtime: runtime),
                                                                 to: host)
        switch outcome {
        case .sent, .failed(.timeout): break
        case .notHere: return .failure(.unreachable("the Homebase is not connected to the relay"))
        case .dropped: return .failure(.unreachable("the relay dropped the request"))
        case .failed(let e): return .failure(.unreachable("the request was not sent: \(e)"))
        }
        let watch = IdleWatch(timeout: timeout) { replies.cancel() }
        defer { watch.stop() }
        for await reply in replies {
            watch.heard()
            switch reply {
            case .message(.manageProgress(let p)): progress(p)
            case .message(.manageResult(let r)): return .success(r)
            case .message(.error(let e)): return .failure(.host(code: e.code.name, message: e.message))
            case .hostGone(let reason): return .failure(.interrupted("the Homebase left the relay (\(reason))"))
            default: continue
            }
        }
        if watch.fired { return .failure(.timeout(timeout)) }
        return .failure(.interrupted("the link to the relay ended"))
    }
}

/// Ends the wait when nothing was heard for `timeout`; each `heard()` restarts it.
private final class IdleWatch: Sendable {
    private struct State { var last: UInt64; var fired = false }
    private let state: Mutex<State>
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    init(timeout: Duration, onFire: @escaping @Sendable () -> Void) {
        state = Mutex(State(last: monotonicNanos()))
        let ns = UInt64(timeout.components.seconds) * 1_000_000_000 + UInt64(timeout.components.attoseconds / 1_000_000_000)
        let t = Task { [weak self] in
            var wait = timeout
            while !Task.isCancelled, let self {
                try? await Task.sleep(for: wait)
                if Task.isCancelled { return }
                let idle = self.state.withLock { monotonicNanos() - $0.last }
                if idle >= ns {
                    self.state.withLock { $0.fired = true }
                    onFire()
                    return
                }
                wait = .nanoseconds(Int64(ns - idle))
            }
        }
        task.withLock { $0 = t }
    }

    func heard() { state.withLock { $0.last = monotonicNanos() } }
    var fired: Bool { state.withLock { $0.fired } }
    func stop() { task.withLock { $0?.cancel() } }
}
