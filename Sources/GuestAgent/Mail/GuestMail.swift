import Foundation
import Routing
import Sealing
import Signing
import Storage
import Wire

/// What the guest does with the mail its account sends it: a `roster` signed by the trusted
/// account key (version only forward) replaces the directory; an `advert` from a Homebase in
/// that roster goes to the own-advert store, with the Homebase's key as the store's host key.
/// Pure of sockets: the link feeds it deliveries and acks what it says to.
public struct GuestMail: Sendable {
    public let paths: GuestPaths
    public let directory: GuestDirectory
    public let database: Database
    /// Called with the id of a local model a sibling chose (`local:ID`): select or download it.
    public var localModelChoice: (@Sendable (String) -> Void)?
    /// The router's windows: an own Homebase whose advert the router would count stale gives way
    /// to another Homebase of the roster (`OwnHomebase`).
    public var freshness = FreshnessLimits()

    public init(paths: GuestPaths, directory: GuestDirectory, database: Database) {
        self.paths = paths; self.directory = directory; self.database = database
    }

    /// What became of one message.
    public enum Outcome: Equatable, Sendable {
        /// Persisted: ack it.
        case stored(String)
        /// Can never become useful (stale, forged, not for us): ack it so the relay drops it.
        case refused(String)
        /// Not handled now (no account key on file yet): leave it at the relay.
        case kept(String)
    }

    public func handle(_ message: AppMessage, from sender: DeviceRecord, heldMs: UInt64) -> Outcome {
        if !directory.inRoster(sender.signingKey),
           let joined = JoinMail(store: JoinedHomebaseStore(database: database), files: JoinedHostFiles(paths: paths),
                                     awayFile: AwayFile(path: paths.away))
               .handle(message, from: sender, heldMs: heldMs) {
            return joined  // another account's Homebase this guest joined
        }
        switch message {
        case .roster(let r): return roster(r)
        case .advert(let a): return advert(a, from: sender, heldMs: heldMs)
        case .away(let a): return away(a, from: sender)
        case .modelChoice(let c): return modelChoice(c, from: sender)
        default: return .refused("ignored \(message.typeCode) from \(shortKey(sender.signingKey))")
        }
    }

    func roster(_ r: AppMessage.Roster) -> Outcome {
        guard let account = AccountKeyFile(path: paths.accountKey).read() else {
            return .kept("roster: no account key on file (guest init --account KEY)")
        }
        guard r.isSigned(by: account) else { return .refused("roster: not signed by the account key on file") }
        let file = RosterFile(path: paths.roster)
        if let held = file.read(account: account), r.version <= held.version {
            return .refused("roster \(r.version): not newer than \(held.version)")
        }
        let records = r.records
        do { try file.write(r) } catch { return .kept("roster \(r.version): cannot be written: \(error)") }
        directory.replaceRoster(records)
        guard records.contains(where: { $0.signingKey == directory.me }) else {
            // Removed from the account: stop routing to its Homebase (no own advert counts now).
            try? FileManager.default.removeItem(atPath: paths.homebaseKey)
            return .stored("roster \(r.version): \(records.count) device(s); this device was removed from the account")
        }
        return .stored("roster \(r.version): \(records.count) device(s)")
    }

    func advert(_ a: AppMessage.Advert, from sender: DeviceRecord, heldMs: UInt64) -> Outcome {
        let host = sender.signingKey
        // Only a device of the account's roster may be "own", and only for itself.
        guard directory.inRoster(host) else { return .refused("advert: \(shortKey(host)) is not in the roster") }
        guard a.hostKey.bytes == host.bytes else { return .refused("advert: names another host than its sender") }
        do {
            let received = try OwnAdvertStore(database: database, accountHostKey: host).accept(a, heldMs: heldMs)
            let said = "advert \(a.sequence) from \(shortKey(host)): \(received.modelTags.count) model(s), held \(heldMs) ms"
            let file = HomebaseKeyFile(path: paths.homebaseKey), current = file.read()
            guard current != host else { return .stored(said) }
            let db = database
            guard let why = OwnHomebase.takeOver(
                current: current, candidate: received, nowMs: SystemWallClock().nowMs(),
                limits: freshness, inRoster: directory.inRoster,
                advertOf: { (try? OwnAdvertStore(database: db, accountHostKey: $0).latestOwnAdvert()) ?? nil }) else {
                return .stored(said + "; the own Homebase stays \(current.map { shortKey($0) } ?? "?")")
            }
            try file.write(host)
            return .stored(said + "; now the own Homebase (\(why))")
        } catch let e as RoutingError {
            return .refused("advert \(a.sequence): \(e)")
        } catch {
            return .kept("advert \(a.sequence): homebase.key cannot be written")
        }
    }
}

extension GuestMail {
    /// A host going to sleep says so (its advert listing no models came just before): kept
    /// for the router's words, from the host itself only.
    func away(_ a: AppMessage.Away, from sender: DeviceRecord) -> Outcome {
        guard AwayFile(path: paths.away).accept(a, from: sender.signingKey, nowMs: SystemWallClock().nowMs()) else {
            return .refused("away: not signed by its sender \(shortKey(sender.signingKey))")
        }
        return .stored("away: \(shortKey(sender.signingKey)) went to sleep (its advert \(a.advertSequence))")
    }
}
