import Foundation
import Routing
import Sealing
import Signing
import Storage

/// `guest devices`: the account's roster as this device holds it. A device whose adverts this
/// guest holds (the routing store's `OwnAdvertStore` per key) is a Homebase: the first
/// workstation and every one joined with `homebase pair CODE`; the one in `homebase.key` is the
/// one this guest routes to ("in use").
public struct DeviceListing: Codable, Sendable, Equatable {
    public struct Device: Codable, Sendable, Equatable {
        public var key: String
        public var name: String
        public var thisDevice: Bool
        /// A Homebase of the account (this guest holds its advert, or routes to it).
        public var homebase: Bool
        /// The Homebase this guest routes to.
        public var inUse: Bool
    }
    public var account: String?
    public var version: UInt64?
    public var devices: [Device]
    /// False when the roster on file does not list this device (it was removed).
    public var member: Bool

    /// Reads the roster, `homebase.key` and the adverts on file (`database`: the routing store).
    public static func gather(_ paths: GuestPaths, database: Database) -> DeviceListing {
        let me = (try? DeviceIdentity.load(from: paths.identity))?.signingKey.publicKey
        guard let account = AccountKeyFile(path: paths.accountKey).read(),
              let roster = RosterFile(path: paths.roster).read(account: account) else {
            return DeviceListing(account: nil, version: nil, devices: [], member: false)
        }
        let inUse = HomebaseKeyFile(path: paths.homebaseKey).read()
        let devices = roster.records.map { r in
            let advertised = ((try? OwnAdvertStore(database: database, accountHostKey: r.signingKey).latestOwnAdvert()) ?? nil) != nil
            return Device(key: r.signingKey.hex, name: r.name, thisDevice: r.signingKey == me,
                          homebase: advertised || r.signingKey == inUse, inUse: r.signingKey == inUse)
        }
        return DeviceListing(account: account.hex, version: roster.version, devices: devices, member: devices.contains { $0.thisDevice })
    }

    /// The tags shown after a device's name: "this device", "Homebase" or "Homebase, in use".
    public static func tags(_ d: Device) -> [String] {
        (d.thisDevice ? ["this device"] : []) + (d.homebase ? ["Homebase"] : []) + (d.inUse ? ["in use"] : [])
    }
}
