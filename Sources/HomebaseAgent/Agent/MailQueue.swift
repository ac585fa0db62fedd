import Courier
import Sealing
import Wire

/// The host's outgoing mail (adverts, rosters), sent in the order it was queued by one task:
/// a newer advert never overtakes an older one on its way to the relay, so the frame the relay
/// keeps under a collapse key is always the newest.
final class MailQueue: Sendable {
    struct Item: Sendable {
        var message: AppMessage
        var to: DeviceRecord
        var ttl: Duration
        var collapseKey: [UInt8]
    }

    private let items: AsyncStream<Item>
    private let sink: AsyncStream<Item>.Continuation

    /// `capacity`: items waiting at most (the oldest are dropped beyond it: a newer advert or
    /// roster is queued behind them anyway).
    init(capacity: Int = 1024) {
        (items, sink) = AsyncStream.makeStream(of: Item.self, bufferingPolicy: .bufferingNewest(capacity))
    }

    func send(_ message: AppMessage, to device: DeviceRecord, ttl: Duration, collapseKey: [UInt8]) {
        sink.yield(Item(message: message, to: device, ttl: ttl, collapseKey: collapseKey))
    }

    /// Sends until the queue is finished or the task cancelled. Failures are logged, not retried:
    /// the next pulse or change sends newer facts.
    func run(courier: Courier, log: @Sendable (String) -> Void) async {
        for await item in items {
            do {
                if try await courier.sendMail(item.message, to: item.to, ttl: item.ttl,
                                              collapseKey: item.collapseKey) == .mailboxFull {
                    log("mailbox of \(item.to.signingKey.hex.prefix(16))… is full")
                }
            } catch {
                log("mail to \(item.to.signingKey.hex.prefix(16))…: \(error)")
            }
        }
    }

    func finish() { sink.finish() }
}
