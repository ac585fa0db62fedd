import Courier
import PeerLink
import Sealing
import Signing
import Synchronization
import Wire

/// The host's outgoing mail (adverts, rosters, grants, revocations), sent in the order it was
/// queued by one task: a newer advert never overtakes an older one on its way to the relay, so
/// the frame the relay keeps under a collapse key is always the newest.
///
/// Trust mail (everything but adverts: `durable`) stays due until the relay answers `stored`:
/// `mailbox-full` or a failure queues it again after a backoff (`retry`). An item is skipped
/// once a newer one with the same recipient and collapse key was queued (the newer one says more).
final class MailQueue: Sendable {
    struct Item: Sendable {
        var message: AppMessage
        var to: DeviceRecord
        var ttl: Duration
        var collapseKey: [UInt8]
        var durable: Bool
        var attempt = 0
        var generation: UInt64 = 0
        /// Called once the relay answered `stored` (what the sender persists as told).
        var onStored: (@Sendable () -> Void)?
    }

    /// Where a newer item replaces an older one: recipient and collapse key.
    private struct Slot: Hashable { var to: PublicKey; var key: [UInt8] }

    private let items: AsyncStream<Item>
    private let sink: AsyncStream<Item>.Continuation
    private let retry: Backoff
    private let capacity: Int
    private let latest = Mutex<[Slot: UInt64]>([:])
    private let waiting = Mutex<(next: UInt64, timers: [UInt64: Task<Void, Never>])>((0, [:]))

    /// `capacity`: items waiting at most, queued or waiting for a retry (the oldest queued are
    /// dropped beyond it: a newer advert or roster is queued behind them anyway).
    init(capacity: Int = 1024, retry: Backoff = Backoff()) {
        (items, sink) = AsyncStream.makeStream(of: Item.self, bufferingPolicy: .bufferingNewest(capacity))
        self.retry = retry
        self.capacity = capacity
    }

    /// Queues `message`; `durable` (the default) keeps it due until stored. Adverts pass false:
    /// the next pulse sends a newer one anyway.
    /// `onStored` runs once the relay stored it.
    func send(_ message: AppMessage, to device: DeviceRecord, ttl: Duration, collapseKey: [UInt8], durable: Bool = true,
              onStored: (@Sendable () -> Void)? = nil) {
        var item = Item(message: message, to: device, ttl: ttl, collapseKey: collapseKey, durable: durable,
                        onStored: onStored)
        if !collapseKey.isEmpty {
            item.generation = latest.withLock { l in
                let g = (l[Slot(to: device.signingKey, key: collapseKey)] ?? 0) + 1
                l[Slot(to: device.signingKey, key: collapseKey)] = g
                return g
            }
        }
        sink.yield(item)
    }

    /// Sends until the queue is finished or the task cancelled.
    func run(courier: Courier, log: @Sendable (String) -> Void) async {
        for await item in items where !superseded(item) {
            let to = "\(Self.kind(item.message)) to \(item.to.signingKey.hex.prefix(16))…"
            do {
                if try await courier.sendMail(item.message, to: item.to, ttl: item.ttl,
                                              collapseKey: item.collapseKey) == .stored {
                    item.onStored?()
                    continue
                }
                log("\(to): mailbox is full" + again(item))
            } catch {
                log("\(to): \(error)" + again(item))
            }
        }
    }

    /// Stops sending; the retries waiting are dropped.
    func finish() {
        sink.finish()
        let timers = waiting.withLock { w in defer { w.timers = [:] }; return Array(w.timers.values) }
        for t in timers { t.cancel() }
    }

    /// What the log calls it (never its content).
    static func kind(_ m: AppMessage) -> String {
        switch m {
        case .roster: "roster"
        case .advert: "advert"
        case .away: "away"
        case .grant: "grant"
        case .revoke: "revoke"
        case .pairCodeOutcome: "pairing outcome"
        default: "mail"
        }
    }

    private func superseded(_ item: Item) -> Bool {
        guard !item.collapseKey.isEmpty else { return false }
        return latest.withLock { $0[Slot(to: item.to.signingKey, key: item.collapseKey)] != item.generation }
    }

    /// Queues a durable item again after its backoff; the words for the log line.
    private func again(_ item: Item) -> String {
        guard item.durable else { return "" }
        // Doubling from `initial` up to `maximum`, jittered downward (the link's `Backoff` grows
        // with time down instead; here each `mailbox-full` is one step).
        let doubled = retry.initial * Double(1 << min(item.attempt, 30))
        let delay = Swift.min(retry.maximum, doubled) * (1 - retry.jitter * Double.random(in: 0..<1))
        var bumped = item
        bumped.attempt += 1
        let next = bumped
        let queued = waiting.withLock { w -> Bool in
            guard w.timers.count < capacity else { return false }
            let id = w.next
            w.next += 1
            w.timers[id] = Task { [weak self] in
                guard (try? await Task.sleep(for: delay)) != nil, let self else { return }
                _ = self.waiting.withLock { $0.timers.removeValue(forKey: id) }
                if !self.superseded(next) { self.sink.yield(next) }
            }
            return true
        }
        return queued ? "; retrying in \(delay)" : "; dropped: too many retries waiting"
    }
}
