import Basics
import Foundation
import Pairing
import Sealing
import Signing
import Storage
import Wire

/// `guest pair CODE`: joins this device to the account of the Homebase that printed the code.
///
/// The exchange and its checks are `PairExchange` (shared with `homebase pair CODE`); this
/// stores what a verified welcome carries: the account key, the roster, the relay setting with
/// the Homebase's record and the Homebase's advert, so routing to the own Homebase works right after.
public struct PairJoin: Sendable {
    public typealias Options = PairExchange.Options

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
        let welcome = try await PairExchange(identity: identity, options: options).run(code, nowMs: nowMs)
        return try store(welcome, code: code, database: database)
    }

    /// Writes what a verified welcome carries.
    func store(_ w: PairExchange.Welcome, code: PairingCode, database: Database) throws(PairingError) -> Result {
        let homebase = w.inviter
        do {
            try AccountKeyFile(path: paths.accountKey).write(w.accountKey)
            try RosterFile(path: paths.roster).write(w.roster)
            try HomebaseKeyFile(path: paths.homebaseKey).write(homebase.signingKey)
            try RelayFile(path: paths.relaySetting).write(.init(
                url: code.relayURL, pin: code.pin.map { hexString($0) }, homebase: hexString(homebase.encoded),
                proof: try w.relayProof.map { hexString(try $0.encode()) },
                alternates: code.alternates.isEmpty ? nil : code.alternates))
        } catch {
            throw .link("cannot write the account files in \(paths.dataDirectory): \(error)")
        }
        var advertStored = false
        if let advert = w.message.advert {
            let directory = GuestDirectory(me: identity.signingKey.publicKey, bootstrap: homebase, roster: w.records)
            let mail = GuestMail(paths: paths, directory: directory, database: database)
            if case .stored = mail.handle(.advert(advert), from: homebase, heldMs: 0) { advertStored = true }
        }
        return Result(confirmation: w.confirmation, homebase: homebase, accountKey: w.accountKey,
                      rosterVersion: w.roster.version, devices: w.records.count, advertStored: advertStored)
    }
}
