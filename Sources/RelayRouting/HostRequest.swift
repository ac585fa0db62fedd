import Courier
import PeerLink
import Routing
import Sealing
import Signing
import Synchronization
import Wire

/// One sealed request to a Homebase and the wait for its answer, with no fallback and no
/// repair: what embeddings (`HomebaseEmbedder`) and `guest host` (GuestAgent's `HostManager`)
/// share. The caller's `read` turns a reply into the answer (or hears progress and waits on);
/// the host's `error`, its `peer-gone`, the link ending and the wait running out end it here.
public struct HostRequest: Sendable {
    /// Why no answer came back.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The request surely did not arrive (not connected to the relay, no device record).
        case unreachable(String)
        /// This guest could not seal the request: nothing was sent.
        case notSealed(String)
        /// Nothing from the Homebase for this long; `flag` is the setting that sets it.
        case timeout(Duration, flag: String)
        /// The Homebase left the relay, or the link ended, before answering.
        case interrupted(String)
        /// The host's `error`: its code and its message (for logs; never prompt text).
        case host(AppMessage.ErrorCode, message: String)
        /// The host answered something that does not fit the request (count or model).
        case mismatched(String)

        public var description: String {
            switch self {
            case .unreachable(let why): "the Homebase is not reachable: \(why)"
            case .notSealed(let why): "the request could not be sealed: \(why)"
            case .timeout(let d, let flag): "the Homebase sent nothing for \(d) (\(flag))"
            case .interrupted(let why): "the Homebase did not answer: \(why)"
            case .host(.notOwner, let message): "refused (not_owner): \(message)"
            case .host(let code, let message): "the Homebase answered \(code.name): \(message)"
            case .mismatched(let why): "the Homebase's answer does not fit the request: \(why)"
            }
        }
    }

    public let hostKey: PublicKey
    let courier: Courier
    let directory: any DeviceDirectory
    /// The host's record when the directory may not hold it (a joined Homebase's).
    let record: DeviceRecord?
    /// How long the Homebase may stay silent: every reply restarts the wait.
    public let timeout: Duration
    /// The setting that sets `timeout`, named when it runs out.
    let flag: String

    public init(hostKey: PublicKey, courier: Courier, directory: (any DeviceDirectory)? = nil,
                record: DeviceRecord? = nil, timeout: Duration, flag: String) {
        self.hostKey = hostKey; self.courier = courier; self.directory = directory ?? courier.directory
        self.record = record; self.timeout = timeout; self.flag = flag
    }

    /// Sends `message` (a request for `requestID`) and waits: `read` answers a reply with the
    /// end of the wait, or nil to wait on.
    public func run<Answer: Sendable>(_ message: AppMessage, requestID: Bytes16,
                                      read: (Reply) -> Result<Answer, Failure>?) async -> Result<Answer, Failure> {
        guard let host = record ?? directory.record(for: hostKey) else {
            return .failure(.unreachable("no device record for Homebase \(shortKey(hostKey))"))
        }
        let outcome: LiveOutcome, replies: ReplyStream
        do {
            (outcome, replies) = try await courier.sendAwaitingReplies(message, requestID: requestID, to: host)
        } catch {
            return .failure(.notSealed(error.description))
        }
        switch outcome {
        case .sent, .failed(.timeout): break  // arrived, or may have: wait for the answer
        case .notHere: return .failure(.unreachable("the Homebase is not connected to the relay"))
        case .dropped: return .failure(.unreachable("the relay dropped the request (the Homebase reads too slowly)"))
        case .failed(let e): return .failure(.unreachable("the request was not sent: \(e)"))
        }
        let watch = IdleWatch(timeout: timeout) { replies.cancel() }
        defer { watch.stop() }
        for await reply in replies {
            watch.heard()
            switch reply {
            case .message(.error(let e)): return .failure(.host(e.code, message: e.message))
            case .hostGone(let reason): return .failure(.interrupted(BrainFailure.words(reason)))
            default: if let end = read(reply) { return end }
            }
        }
        if Task.isCancelled { return .failure(.interrupted("the caller stopped waiting")) }
        if watch.fired { return .failure(.timeout(timeout, flag: flag)) }
        return .failure(.interrupted("the link to the relay ended"))
    }
}

/// Ends the wait when nothing was heard for `timeout`; each `heard()` restarts it.
private final class IdleWatch: Sendable {
    private struct State { var last: ContinuousClock.Instant; var fired = false }
    private let state = Mutex(State(last: .now))
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    init(timeout: Duration, onFire: @escaping @Sendable () -> Void) {
        let t = Task { [weak self] in
            var wait = timeout
            while !Task.isCancelled, let self {
                try? await Task.sleep(for: wait)
                if Task.isCancelled { return }
                let idle = ContinuousClock.now - self.state.withLock { $0.last }
                if idle >= timeout {
                    self.state.withLock { $0.fired = true }
                    onFire()
                    return
                }
                wait = timeout - idle
            }
        }
        task.withLock { $0 = t }
    }

    func heard() { state.withLock { $0.last = .now } }
    var fired: Bool { state.withLock { $0.fired } }
    func stop() { task.withLock { $0?.cancel() } }
}
