import GuestAgent
import Synchronization

/// The links of a long-lived command that had none at its start (no relay set, nothing joined):
/// `guest serve` on a device that joins a friend's Homebase afterwards. Every `interval` it
/// tries to open them; once open they link into the context's brains, and watch for more joins.
final class LateLinks: Sendable {
    private let state = Mutex<(links: GuestLinks?, stopped: Bool)>((nil, false))
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ context: GuestContext, options: GuestLink.Options, every interval: Duration,
         retakeAfter: Duration?) {
        let started = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled, let opened = (try? GuestLinks.open(context, options: options)) ?? nil,
                      !opened.all.isEmpty else { continue }
                opened.watchJoins(every: interval, retakeAfter: retakeAfter)
                context.log.write("relay: linked to \(opened.all.map(\.setting.url).joined(separator: ", ")) since the start")
                let kept = self?.state.withLock { state -> Bool in
                    guard !state.stopped else { return false }
                    state.links = opened
                    return true
                }
                if kept != true { opened.stop() }
                return
            }
        }
        task.withLock { $0 = started }
    }

    func stop() {
        task.withLock { $0?.cancel() }
        state.withLock { $0.stopped = true; return $0.links }?.stop()
    }
}
