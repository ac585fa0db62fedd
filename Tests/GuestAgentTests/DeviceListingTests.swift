import Foundation
@testable import GuestAgent
import Routing
import Sealing
import Signing
import Testing
import Wire

/// `guest devices` on real stores: every device whose adverts this guest holds is a Homebase
/// (a second workstation too), the one in `homebase.key` is "in use", a plain device is plain.
@Suite struct DeviceListingTests {
    @Test func everyAdvertisingDeviceIsAHomebaseAndTheRoutedOneIsInUse() async throws {
        let paths = GuestPaths(dataDirectory: try temporaryDirectory("guest-tests"))
        let context = try GuestContext(GuestConfiguration(paths: paths, environment: [:]))
        let account = SigningKey.generate()
        let first = try DeviceIdentity.generate(name: "ws-one", now: 1), second = try DeviceIdentity.generate(name: "ws-two", now: 1)
        let me = try DeviceIdentity.generate(name: "laptop", now: 1), phone = try DeviceIdentity.generate(name: "phone", now: 1)
        try me.save(to: paths.identity)
        try context.account.write(account.publicKey)
        var roster = AppMessage.Roster(accountKey: account.publicKey, version: 4,
                                       deviceRecords: [first, second, me, phone].map(\.record.encoded))
        roster.signature = Bytes64(unchecked: account.sign(try roster.signedBytes()))
        try RosterFile(path: paths.roster).write(roster)
        try HomebaseKeyFile(path: paths.homebaseKey).write(first.signingKey.publicKey)
        for host in [first, second] {
            var a = AppMessage.Advert(hostKey: host.signingKey.publicKey, sequence: 1, timestampMs: 1, models: [])
            a.signature = Bytes64(unchecked: host.signingKey.sign(try a.signedBytes()))
            try OwnAdvertStore(database: context.routingDatabase, accountHostKey: host.signingKey.publicKey).accept(a, heldMs: 0)
        }

        let listing = DeviceListing.gather(paths, database: context.routingDatabase)
        #expect(listing.version == 4 && listing.member && listing.devices.count == 4)
        let byName = Dictionary(uniqueKeysWithValues: listing.devices.map { ($0.name, $0) })
        #expect(DeviceListing.tags(try #require(byName["ws-one"])) == ["Homebase", "in use"])
        #expect(DeviceListing.tags(try #require(byName["ws-two"])) == ["Homebase"])
        #expect(DeviceListing.tags(try #require(byName["laptop"])) == ["this device"])
        #expect(DeviceListing.tags(try #require(byName["phone"])) == [])

        // The other Homebase takes over routing: the marks follow homebase.key.
        try HomebaseKeyFile(path: paths.homebaseKey).write(second.signingKey.publicKey)
        let after = DeviceListing.gather(paths, database: context.routingDatabase)
        #expect(after.devices.first { $0.name == "ws-two" }?.inUse == true && after.devices.first { $0.name == "ws-one" }?.inUse == false)
        #expect(after.devices.first { $0.name == "ws-one" }?.homebase == true)
        await context.shutdown()
    }
}
