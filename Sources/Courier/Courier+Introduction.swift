import Basics
import PeerLink
import Sealing
import Signing
import Wire

/// What became of one introduction: the live or mail outcome of its single frame.
public enum IntroductionOutcome: Equatable, Sendable {
    /// Live: handed to the relay and not bounced.
    case sent
    /// Live: the recipient is not connected to this relay.
    case notHere
    /// Live: the relay dropped it (the recipient reads too slowly).
    case dropped
    /// Mail: stored durably for the recipient.
    case stored
    /// Mail: the recipient's mailbox is full.
    case mailboxFull
}

extension Courier {
    /// Sends `message` to a device that may not know us yet (first contact: a `join`, a
    /// pairing message), sealed as an `Introduction` to its HPKE key. One frame only: a message
    /// too large for it throws `.sealing(.tooLarge)` (introductions are never split into parts).
    /// Throws `CourierError` (`.encoding`, `.sealing`, `.link`, `.cancelled`).
    public func introduce(_ message: AppMessage, toSigningKey recipient: PublicKey, hpkeKey: HPKE.PublicKey,
                          deliveryClass: DeliveryClass, ttl: Duration = .seconds(86_400))
        async throws(CourierError) -> IntroductionOutcome {
        var body: [UInt8]
        do { body = try message.encode() } catch { throw .encoding(error) }
        defer { wipe(&body) }
        let payload: [UInt8]
        do {
            payload = try Introduction.seal(body, from: identity, toSigningKey: recipient, hpkeKey: hpkeKey,
                                            now: configuration.now())
        } catch let e as SealingError { throw .sealing(e) } catch { throw .sealing(.openFailed) }
        guard payload.count <= Limits.maxSealed else { throw .sealing(.tooLarge) }
        switch deliveryClass {
        case .live:
            switch await link.sendLive(to: recipient, payload: payload) {
            case .sent: return .sent
            case .notHere: return .notHere
            case .dropped: return .dropped
            case .failed(let e): throw .link(e)
            }
        case .mail:
            do {
                return try await link.sendMail(to: recipient, payload: payload, ttl: ttl) == .stored ? .stored : .mailboxFull
            } catch let e as PeerLinkError { throw .link(e) } catch { throw .cancelled }
        }
    }

    /// An inbound introduction: opened whatever the directory says (it vouches for itself), and
    /// delivered with `introduced = true` so that consumers act on it only where first contact
    /// is expected (`join`, pairing). Never a reply, never a part, never a reply stream.
    func handleIntroduction(_ bytes: [UInt8], frame: Inbound) {
        let now = configuration.now()
        // Before any key agreement: a sender over its rate is dropped unopened.
        guard inbound.withLock({ $0.introductionLimit.admit(frame.sender, nowMs: now) }) else {
            count(\.introductionsLimited, dropping: frame)
            return
        }
        let opening = counting(\.introductions) { s in
            try Introduction.open(bytes, by: identity, from: frame.sender, replay: &s.introductionReplay, now: now)
        }
        let opened: OpenedIntroduction
        switch opening {
        case .opened(let o): opened = o
        case .refused: link.ack(frame); return
        case .retry: return
        }
        guard let message = decode(opened.body, frame: frame) else { return }
        switch message {
        case .unknown: link.ack(frame); return
        case .part: count(\.malformed, dropping: frame); return
        default: break
        }
        let delivery = Delivery(message: message, sender: opened.sender, messageID: opened.messageID,
                                heldMs: frame.heldMs, receivedAtMs: frame.receivedAtWallMs, streamSecret: nil,
                                deliveryClass: frame.deliveryClass, frameID: frame.frameID,
                                acker: frame.deliveryClass == .mail ? Acker(link: link, frames: [frame]) : nil,
                                introduced: true)
        if case .dropped = deliverySink.yield(delivery) { count(\.bufferOverflows, dropping: nil) }
    }
}
