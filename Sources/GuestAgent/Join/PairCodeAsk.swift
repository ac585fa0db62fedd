import Courier
import Foundation
import Pairing
import PeerLink
import Sealing
import Signing
import Wire

/// `guest pair` with no code, on a device of the account: this device does not hold the account
/// key, so it asks the account's Homebase (which does) for a pairing code, over the account's
/// relay, sealed and signed like every sibling message. The code comes back sealed to this device
/// only. Then it watches the roster the Homebase mails after a pairing for the device that was
/// not there, and computes the confirmation from the code's secret: the number both other
/// screens show.
///
///     let ask = try PairCodeAsk(account: account, context: context)
///     defer { ask.stop() }
///     try await ask.connect()
///     switch try await ask.request() { case .issued(let i): ...; case .refused(_, let text): ... }
///     switch await ask.waitForNewDevice(issued, until: deadline) { case .joined(let j): ...; case .burnt(let n): ... }
public final class PairCodeAsk: Sendable {
    public struct Options: Sendable {
        /// Relay connect and handshake, each.
        public var connectTimeout: Duration = .seconds(5)
        /// Longest wait for the mail backlog before the roster on file is taken as "before".
        public var backlogWait: Duration = .seconds(2)
        /// Longest wait for the Homebase's answer once the request is out.
        public var answerWait: Duration = .seconds(30)
        /// How long the code stays valid (ms) and the wrong tries that burn it; 0: the Homebase's default.
        public var validMs: UInt32 = 0
        public var maxTries: UInt8 = 0
        /// A roster may arrive this long after the code's expiry (a pairing just in time).
        public var expiryGrace: Duration = .seconds(5)
        public init() {}
    }

    /// The answer: a code, or the Homebase's reason for none.
    public enum Answer: Sendable {
        case issued(Issued)
        case refused(AppMessage.PairCode.Refusal, text: String)
    }

    public struct Issued: Sendable {
        /// Holds the secret: print `code.text` to the person, never log it.
        public var code: PairingCode
        public var maxTries: Int
        /// The roster's devices when the code was issued.
        public var before: Set<PublicKey>
    }

    /// The device that joined, and the confirmation computed here from the code's secret.
    public struct Joined: Sendable, Equatable {
        public var device: DeviceRecord
        public var confirmation: String
        /// The roster on file that lists it (nil: the Homebase's notice came before the roster).
        public var rosterVersion: UInt64?
    }

    /// What the wait for the new device ended with.
    public enum Waited: Sendable, Equatable {
        case joined(Joined)
        /// The Homebase said the code was burnt by this many wrong tries.
        case burnt(wrongTries: Int)
        /// The Homebase said the code ended in a way this version does not know.
        case unusable(outcome: UInt8)
        /// Nothing until the deadline, or the code's expiry and `expiryGrace`.
        case nothing
    }

    public let account: PairingAccount
    let paths: GuestPaths
    let link: GuestLink
    let answers: PairCodeAnswers
    let options: Options
    let log: EventLog
    private let tasks: [Task<Void, Never>]

    /// Opens (and starts) the link to the account's relay. Other mail that arrives meanwhile is
    /// handled as by every linked command (`GuestLinks`).
    public init(account: PairingAccount, context: GuestContext, options: Options = Options()) throws {
        let paths = context.paths, log = context.log
        self.account = account; self.paths = paths; self.options = options; self.log = log
        let directory = GuestDirectory(me: account.identity.signingKey.publicKey, bootstrap: account.homebase,
                                       roster: account.roster?.records ?? [])
        let mail = GuestMail.linked(context, directory: directory)
        var linkOptions = GuestLink.Options()
        linkOptions.connectTimeout = options.connectTimeout
        linkOptions.backlogWait = options.backlogWait
        link = try GuestLink.make(setting: account.relay, role: .account, identity: account.identity, directory: directory,
                                  peers: JoinedDirectory(account: directory, joined: JoinedHostFiles(paths: paths).all()),
                                  mail: mail, options: linkOptions, log: log, replay: try ReplayStore(path: paths.replayStore))
        answers = PairCodeAnswers(homebase: account.homebase.signingKey)
        tasks = link.startAnswering(answers)
    }

    /// Waits until the link is up and the mail backlog read (a roster in it counts as "before").
    public func connect() async throws(PairingError) {
        let deadline = ContinuousClock.now + options.connectTimeout * 2
        while !link.isConnected {
            if let why = link.refusal { throw .link("\(account.relay.url) refused this device: \(why)") }
            guard ContinuousClock.now < deadline else { throw .link("cannot reach \(account.relay.url)") }
            try? await Task.sleep(for: .milliseconds(10))
        }
        await link.waitForBacklog()
    }

    /// Asks the Homebase for a code. Throws `.inviterOffline` when it is not connected to the
    /// relay, `.noAnswer` when it does not answer in time.
    public func request() async throws(PairingError) -> Answer {
        let before = Set(roster()?.records.map(\.signingKey) ?? [])
        let id = Bytes16(unchecked: randomBytes(count: Bytes16.count))
        answers.expect(id)
        let message = AppMessage.pairCodeRequest(.init(requestID: id, validMs: options.validMs, maxTries: options.maxTries))
        switch await link.courier.send(message, to: account.homebase) {
        case .sent, .failed(.timeout): break
        case .notHere: throw .inviterOffline
        case let other: throw .link("the request could not be sent (\(other)); try again")
        }
        let answer = try await answers.wait(options.answerWait)
        switch answer.result {
        case .refused(let why, let text):
            log.write("pairing code refused by the Homebase: \(text)")
            return .refused(why, text: text)
        case .issued(let text, _, let tries):
            let code: PairingCode
            do { code = try PairingCode(parsing: text) } catch { throw .forgedAnswer("the code it sent does not parse (\(error))") }
            guard code.inviterSigningKey == account.homebase.signingKey else {
                throw .forgedAnswer("the code names another device than the Homebase")
            }
            log.write("pairing code \(code.codeID.hex) received, valid until \(PairingError.time(code.expiresMs))")
            return .issued(Issued(code: code, maxTries: Int(tries), before: before))
        }
    }

    /// Waits until the Homebase says what became of the code (`pair-code-outcome`: used, with the
    /// joiner's record, or burnt), or a roster from it lists a device that was not there when the
    /// code was issued (a Homebase that sends no outcome).
    public func waitForNewDevice(_ issued: Issued, until deadline: ContinuousClock.Instant? = nil) async -> Waited {
        let me = account.identity.signingKey.publicKey
        let expiry = Date(timeIntervalSince1970: Double(issued.code.expiresMs) / 1000)
        let untilExpiry = ContinuousClock.now + .milliseconds(Int64(max(0, expiry.timeIntervalSinceNow * 1000)))
        let end = min(deadline ?? .now + .seconds(86_400 * 365), untilExpiry + options.expiryGrace)
        while true {
            if let o = answers.outcome, o.codeID == issued.code.codeID {
                switch o.outcome {
                case .burnt:
                    log.write("pairing code \(o.codeID.hex) burnt after \(o.wrongTries) wrong tries")
                    return .burnt(wrongTries: Int(o.wrongTries))
                case .used:
                    if let device = try? DeviceRecord(encoded: o.deviceRecord) {
                        let inviter = roster()?.records.first { $0.signingKey == issued.code.inviterSigningKey } ?? account.homebase
                        let confirmation = PairingProofs.confirmation(secret: issued.code.secret, inviter: inviter, joiner: device)
                        let version = roster().flatMap { r in r.records.contains(device) ? r.version : nil }
                        log.write("paired \(device.name) \(device.signingKey.short) with this device's code (the Homebase's notice)")
                        return .joined(Joined(device: device, confirmation: confirmation, rosterVersion: version))
                    }
                    log.write("pairing code \(o.codeID.hex): the Homebase's notice holds no valid device record; watching the roster")
                case .other(let c):
                    return .unusable(outcome: c)
                }
            }
            if let r = roster(), let homebase = r.records.first(where: { $0.signingKey == issued.code.inviterSigningKey }),
               let device = r.records.last(where: { !issued.before.contains($0.signingKey) && $0.signingKey != me
                                                    && $0.signingKey != homebase.signingKey }) {
                let confirmation = PairingProofs.confirmation(secret: issued.code.secret, inviter: homebase, joiner: device)
                log.write("paired \(device.name) \(device.signingKey.short) with this device's code: roster \(r.version)")
                return .joined(Joined(device: device, confirmation: confirmation, rosterVersion: r.version))
            }
            guard ContinuousClock.now < end else { return .nothing }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Stops the link. Final.
    public func stop() {
        link.stop()
        tasks.forEach { $0.cancel() }
    }

    func roster() -> AppMessage.Roster? { RosterFile(path: paths.roster).read(account: account.accountKey) }
}
