import Courier
import Foundation
import Pairing
import PeerLink
import Sealing
import Signing
import Storage
import Synchronization
import Wire

/// `guest pair CODE`: joins this device to the account of the Homebase that printed the code.
///
/// Connects to the code's relay as this device, sends `pair-request` as an introduction sealed
/// to the HPKE key the code pins (only that Homebase can open it; the relay sees ciphertext),
/// and waits for its answer, which must come from the pinned keys and prove the code's secret.
/// A welcome stores the account key, the roster, the relay setting with the Homebase's record
/// and the Homebase's advert: routing to the own Homebase works right after.
public struct PairJoin: Sendable {
    public struct Options: Sendable {
        /// The relay connect and handshake, each.
        public var connectTimeout: Duration = .seconds(10)
        /// Longest wait for the Homebase's answer once the request is out.
        public var answerWait: Duration = .seconds(30)
        public init() {}
    }

    /// What a successful pairing stored.
    public struct Result: Sendable, Equatable {
        public var confirmation: String
        public var homebase: DeviceRecord
        public var accountKey: PublicKey
        public var rosterVersion: UInt64
        public var devices: Int
        public var advertStored: Bool
    }

    public let paths: GuestPaths
    public let identity: DeviceIdentity
    public let options: Options

    public init(paths: GuestPaths, identity: DeviceIdentity, options: Options = Options()) {
        self.paths = paths; self.identity = identity; self.options = options
    }

    /// The whole exchange; `database` is the routing store the Homebase's advert goes to.
    /// Nothing is written unless the welcome verifies.
    public func run(_ code: PairingCode, database: Database, nowMs: Int64) async throws(PairingError) -> Result {
        guard nowMs < code.expiresMs else { throw .expired(atMs: code.expiresMs) }
        var config: PeerLink.Configuration
        do {
            let trust: PeerLink.Trust = code.pin.map { .pinnedSHA256($0) } ?? .systemRoots
            config = try PeerLink.Configuration(relayURL: code.relayURL, trust: trust)
        } catch {
            throw .link("\(code.relayURL): \(error)")
        }
        config.connectTimeout = options.connectTimeout
        config.authTimeout = options.connectTimeout
        let link: PeerLink
        do { link = try PeerLink(configuration: config, identity: identity.signingKey) } catch { throw .link("\(error)") }
        let courier = Courier(link: link, identity: identity, directory: NoDevices())
        defer { courier.stop() }
        let answer = PairAnswer(code: code)
        let readers = [
            Task { for await d in courier.deliveries { answer.offer(d) } },
            Task { for await e in courier.events { if case .link(let s) = e { answer.link(s) } } },
        ]
        defer { readers.forEach { $0.cancel() } }
        courier.start()
        try await answer.waitConnected(options.connectTimeout, relay: code.relayURL)
        let request = AppMessage.pairRequest(.init(codeID: code.codeID, proof: PairingProofs.request(code, joiner: identity.record)))
        let outcome: IntroductionOutcome
        do {
            outcome = try await courier.introduce(request, toSigningKey: code.inviterSigningKey, hpkeKey: code.inviterHPKEKey,
                                                  deliveryClass: .live)
        } catch {
            throw .link("the request could not be sent (\(error)); try again")
        }
        switch outcome {
        case .sent: break
        case .notHere: throw .inviterOffline
        default: throw .link("the relay dropped the request; try again")
        }
        let (welcome, homebase) = try await answer.wait(options.answerWait)
        return try store(welcome, from: homebase, code: code, database: database)
    }

    /// Verifies the welcome and writes what it carries.
    func store(_ w: AppMessage.PairWelcome, from homebase: DeviceRecord, code: PairingCode,
               database: Database) throws(PairingError) -> Result {
        let me = identity.signingKey.publicKey
        guard let expected = try? PairingProofs.welcome(secret: code.secret, joiner: me, w),
              PairingProofs.equal(expected, w.proof) else { throw .forgedAnswer("its proof of the code does not verify") }
        guard let account = PublicKey(bytes: w.roster.accountKey.bytes), w.roster.isSigned(by: account) else {
            throw .forgedAnswer("the roster is not signed by its account key")
        }
        let records = w.roster.records
        guard records.contains(identity.record), records.contains(homebase) else {
            throw .forgedAnswer("the roster does not list this device and the Homebase")
        }
        do {
            try AccountKeyFile(path: paths.accountKey).write(account)
            try RosterFile(path: paths.roster).write(w.roster)
            try HomebaseKeyFile(path: paths.homebaseKey).write(homebase.signingKey)
            try RelayFile(path: paths.relaySetting).write(.init(
                url: code.relayURL, pin: code.pin.map { HexBytes.encode($0) }, homebase: HexBytes.encode(homebase.encoded)))
        } catch {
            throw .link("cannot write the account files in \(paths.dataDirectory): \(error)")
        }
        var advertStored = false
        if let advert = w.advert {
            let directory = GuestDirectory(me: me, bootstrap: homebase, roster: records)
            let mail = GuestMail(paths: paths, directory: directory, database: database)
            if case .stored = mail.handle(.advert(advert), from: homebase, heldMs: 0) { advertStored = true }
        }
        return Result(confirmation: PairingProofs.confirmation(secret: code.secret, inviter: homebase, joiner: identity.record),
                      homebase: homebase, accountKey: account, rosterVersion: w.roster.version, devices: records.count,
                      advertStored: advertStored)
    }
}

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
