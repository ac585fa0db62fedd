import Courier
import Foundation
import Pairing
import Sealing
import Signing
import Synchronization
import Wire

/// What a device needs to ask its Homebase for a pairing code: its identity, the account's
/// relay, the account key (to trust the rosters that follow) and the Homebase's record. Set by
/// `guest pair CODE`, or by hand (`guest init --account KEY`, `guest relay set URL --homebase RECORD`).
public struct PairingAccount: Sendable {
    public var identity: DeviceIdentity
    public var relay: RelayFile.Setting
    public var accountKey: PublicKey
    public var homebase: DeviceRecord
    public var roster: AppMessage.Roster?

    /// Nil when this device is not set up as a device of an account.
    public static func load(_ paths: GuestPaths) -> PairingAccount? {
        guard FileManager.default.fileExists(atPath: paths.identity + "/" + DeviceIdentity.signingKeyFile),
              let identity = try? DeviceIdentity.load(from: paths.identity),
              let relay = try? RelayFile(path: paths.relaySetting).read(),
              let accountKey = AccountKeyFile(path: paths.accountKey).read() else { return nil }
        let roster = RosterFile(path: paths.roster).read(account: accountKey)
        let key = HomebaseKeyFile(path: paths.homebaseKey).read()
        let listed = key.flatMap { k in roster?.records.first { $0.signingKey == k } }
        guard let homebase = listed ?? relay.homebaseRecord else { return nil }
        return PairingAccount(identity: identity, relay: relay, accountKey: accountKey, homebase: homebase, roster: roster)
    }
}

/// The `pair-code` answer awaited, then the `pair-code-outcome` (used or burnt): from the
/// Homebase, for the request id asked.
final class PairCodeAnswers: Sendable {
    private struct State {
        var expected: Bytes16?
        var answer: AppMessage.PairCode?
        var outcome: AppMessage.PairCodeOutcome?
    }
    private let state = Mutex(State())
    let homebase: PublicKey

    init(homebase: PublicKey) { self.homebase = homebase }

    func expect(_ id: Bytes16) { state.withLock { $0 = State(expected: id) } }

    /// True when the message was a `pair-code` or `pair-code-outcome` (taken or not): it is no
    /// mail for `GuestMail`.
    func offer(_ d: Delivery) -> Bool {
        switch d.message {
        case .pairCode(let answer):
            guard !d.introduced, d.sender.signingKey == homebase else { return true }
            state.withLock { s in
                if s.answer == nil, s.expected == answer.requestID { s.answer = answer }
            }
        case .pairCodeOutcome(let outcome):
            guard !d.introduced, d.sender.signingKey == homebase else { return true }
            state.withLock { s in
                if s.outcome == nil, s.expected == outcome.requestID { s.outcome = outcome }
            }
        default: return false
        }
        return true
    }

    /// What became of the code issued for the request asked (nil: nothing heard yet).
    var outcome: AppMessage.PairCodeOutcome? { state.withLock { $0.outcome } }

    func wait(_ limit: Duration) async throws(PairingError) -> AppMessage.PairCode {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let a = state.withLock({ $0.answer }) { return a }
            try? await Task.sleep(for: .milliseconds(10))
        }
        throw .noAnswer(seconds: Int(limit.components.seconds))
    }
}

extension GuestLink {
    /// Starts the link like `start()`, with `pair-code` answers going to `answers` and
    /// everything else to the mail handler as usual. The tasks end when the link stops.
    func startAnswering(_ answers: PairCodeAnswers) -> [Task<Void, Never>] {
        let courier = courier
        let running = [
            Task { [weak self] in
                for await d in courier.deliveries {
                    if answers.offer(d) { d.ack() } else { self?.consume(d) }
                }
            },
            Task { [weak self] in
                for await e in courier.events { self?.note(e) }
            },
        ]
        courier.start()
        return running
    }
}
