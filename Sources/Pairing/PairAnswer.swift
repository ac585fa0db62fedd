import Courier
import PeerLink
import Sealing
import Signing
import Synchronization
import Wire

/// The pairing link knows no device: the only thing it accepts is an introduction.
struct NoDevices: DeviceDirectory {
    func record(for key: PublicKey) -> DeviceRecord? { nil }
}

/// The answer the pairing waits for: from the pinned keys, for our code id.
final class PairAnswer: Sendable {
    private struct State {
        var link: LinkState = .stopped
        var result: Result<(AppMessage.PairWelcome, DeviceRecord), PairingError>?
    }
    private let state = Mutex(State())
    let code: PairingCode

    init(code: PairingCode) { self.code = code }

    func offer(_ d: Delivery) {
        guard d.introduced, d.sender.signingKey == code.inviterSigningKey, d.sender.hpkeKey == code.inviterHPKEKey else { return }
        let outcome: Result<(AppMessage.PairWelcome, DeviceRecord), PairingError>
        switch d.message {
        case .pairWelcome(let w) where w.codeID == code.codeID: outcome = .success((w, d.sender))
        case .pairRefused(let r) where r.codeID == code.codeID: outcome = .failure(Self.error(r))
        default: return
        }
        state.withLock { if $0.result == nil { $0.result = outcome } }
    }

    func link(_ s: LinkState) { state.withLock { $0.link = s } }

    static func error(_ r: AppMessage.PairRefused) -> PairingError {
        switch r.reason {
        case .unknownCode: .unknownCode
        case .expired: .expired(atMs: 0)
        case .used: .used
        case .wrongSecret: .wrongCode(triesLeft: Int(r.triesLeft))
        case .burnt: .burnt
        case .unavailable, .other: .unavailable(r.text.isEmpty ? "refused (reason \(r.reason.code))" : r.text)
        }
    }

    func waitConnected(_ limit: Duration, relay: String) async throws(PairingError) {
        let deadline = ContinuousClock.now + limit * 2
        while ContinuousClock.now < deadline {
            switch state.withLock({ $0.link }) {
            case .connected: return
            case .refused(let why, _): throw .link("\(relay) refused this device: \(why)")
            default: try? await Task.sleep(for: .milliseconds(10))
            }
        }
        throw .link("cannot reach \(relay)")
    }

    func wait(_ limit: Duration) async throws(PairingError) -> (AppMessage.PairWelcome, DeviceRecord) {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let r = state.withLock({ $0.result }) { return try r.get() }
            try? await Task.sleep(for: .milliseconds(10))
        }
        throw .noAnswer(seconds: Int(limit.components.seconds))
    }
}
