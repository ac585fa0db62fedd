import Courier
import PeerLink
import Sealing
import Signing
import Wire

/// The joining side of a pairing, shared by `guest pair CODE` and `homebase pair CODE`: the
/// network exchange and every check of the answer. It writes nothing; its caller stores what a
/// verified welcome carries (a guest its files, a Homebase its store).
///
/// Connects to the code's relay as `identity`, sends `pair-request` as an introduction sealed
/// to the HPKE key the code pins (only that Homebase can open it; the relay sees ciphertext),
/// and waits for its answer, which must come from the pinned keys, for the code's id, and prove
/// the code's secret; the roster it carries must be signed by its account key and list both
/// this device and the inviter.
public struct PairExchange: Sendable {
    public struct Options: Sendable {
        /// The relay connect and handshake, each.
        public var connectTimeout: Duration = .seconds(10)
        /// Longest wait for the Homebase's answer once the request is out.
        public var answerWait: Duration = .seconds(30)
        public init() {}
    }

    /// A welcome that verified.
    public struct Welcome: Sendable {
        public var message: AppMessage.PairWelcome
        /// The Homebase that answered (it holds the account key: it re-signed the roster).
        public var inviter: DeviceRecord
        public var accountKey: PublicKey
        /// The roster's records that verify (this device and the inviter among them).
        public var records: [DeviceRecord]
        /// The number both screens show.
        public var confirmation: String
        /// The account's proof for this device at the account's relay, when it verifies.
        public var relayProof: AppMessage.RelayProof?
        public var roster: AppMessage.Roster { message.roster }
    }

    public let identity: DeviceIdentity
    public let options: Options

    public init(identity: DeviceIdentity, options: Options = Options()) {
        self.identity = identity; self.options = options
    }

    /// The whole exchange; nothing is returned unless the welcome verifies.
    public func run(_ code: PairingCode, nowMs: Int64) async throws(PairingError) -> Welcome {
        guard nowMs < code.expiresMs else { throw .expired(atMs: code.expiresMs) }
        var config: PeerLink.Configuration
        do {
            let trust: PeerLink.Trust = code.pin.map { .pinnedSHA256($0) } ?? .systemRoots
            config = try PeerLink.Configuration(relayURL: code.relayURL, trust: trust)
            try config.addAlternates(code.alternates)  // another node of the cluster when the first is down
        } catch {
            throw .link("\(code.relayURL): \(error)")
        }
        config.connectTimeout = options.connectTimeout
        config.authTimeout = options.connectTimeout
        let link: PeerLink
        // A relay admitting by account knows this device by the code's token (the Homebase told it).
        let token = AdmissionTokens.pairCode(secret: code.secret, codeID: code.codeID)
        do { link = try PeerLink(configuration: config, identity: identity.signingKey, admissionToken: token) } catch {
            throw .link("\(error)")
        }
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
        let (welcome, inviter) = try await answer.wait(options.answerWait)
        return try verify(welcome, from: inviter, code: code)
    }

    /// The checks of a welcome (SPEC "Pairing a device"): the proof of the code's secret, the
    /// roster's signature by its account key, and both records listed.
    public func verify(_ w: AppMessage.PairWelcome, from inviter: DeviceRecord,
                       code: PairingCode) throws(PairingError) -> Welcome {
        let me = identity.signingKey.publicKey
        guard let expected = try? PairingProofs.welcome(secret: code.secret, joiner: me, w),
              PairingProofs.equal(expected, w.proof) else { throw .forgedAnswer("its proof of the code does not verify") }
        let account = w.roster.accountKey
        guard let signed = try? w.roster.signedBytes(), account.isValidSignature(w.roster.signature.bytes, for: signed) else {
            throw .forgedAnswer("the roster is not signed by its account key")
        }
        let records = w.roster.deviceRecords.compactMap { try? DeviceRecord(encoded: $0) }
        guard records.contains(identity.record), records.contains(inviter) else {
            throw .forgedAnswer("the roster does not list this device and the Homebase")
        }
        return Welcome(message: w, inviter: inviter, accountKey: account, records: records,
                       confirmation: PairingProofs.confirmation(secret: code.secret, inviter: inviter, joiner: identity.record),
                       relayProof: w.relayProof.flatMap { Self.verified($0, account: account, device: me) })
    }

    /// A relay proof signed by the roster's account key for this device (else none: the relay
    /// would refuse it anyway).
    static func verified(_ p: AppMessage.RelayProof, account: PublicKey, device: PublicKey) -> AppMessage.RelayProof? {
        guard let m = try? RelayAuth.deviceProofBinding(origin: p.origin, deviceKey: device,
                                                        rosterVersion: p.rosterVersion, notAfterSeconds: p.notAfterSeconds),
              account.isValidSignature(p.signature.bytes, for: m) else { return nil }
        return p
    }
}
