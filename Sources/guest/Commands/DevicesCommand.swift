import Foundation
import GuestAgent
import Sealing
import Signing

/// `guest devices`: the account's roster as this device holds it (after reading the relay's mail).
enum DevicesCommand {
    static let command = Command(
        name: "devices", summary: "list your account's devices (the roster this device holds)",
        usage: "[--json]",
        details: "Reads the relay's mail first (a newer roster replaces the one on file), then lists the roster:\n"
            + "each device's key and name, which one is this device and which the Homebase. Devices are added with\n"
            + "`homebase pair` / `guest pair CODE` and removed on the Homebase with `homebase devices remove KEY`.",
        flags: [Flag("--json", "print the roster as JSON")] + Flag.relayLink,
        run: run)

    struct Listing: Codable {
        struct Device: Codable {
            var key: String
            var name: String
            var thisDevice: Bool
            var homebase: Bool
        }
        var account: String?
        var version: UInt64?
        var devices: [Device]
        /// False when the roster on file does not list this device (it was removed).
        var member: Bool
    }

    static func run(_ inv: Invocation) async throws -> Int32 {
        guard inv.positionals.isEmpty else { throw inv.usageError("unexpected argument \(inv.positionals[0])") }
        return try await inv.withLinkedContext { context, _ in
            let listing = list(context.paths)
            if inv.arguments.has("--json") {
                let e = JSONEncoder()
                e.outputFormatting = [.prettyPrinted, .sortedKeys]
                Console.out(String(decoding: try e.encode(listing), as: UTF8.self) + "\n")
                return 0
            }
            guard let version = listing.version, let account = listing.account else {
                Console.out("no roster yet: join your account with `guest pair CODE` (run `homebase pair` on the Homebase)\n")
                return 0
            }
            Console.out("account \(account), roster version \(version), \(listing.devices.count) device(s):\n")
            for d in listing.devices {
                let tags = (d.thisDevice ? ["this device"] : []) + (d.homebase ? ["Homebase"] : [])
                Console.out("  \(d.key)  \(d.name)\(tags.isEmpty ? "" : "  (\(tags.joined(separator: ", ")))")\n")
            }
            if !listing.member {
                Console.out("this device is not in the roster: it was removed from the account\n")
            }
            return 0
        }
    }

    static func list(_ paths: GuestPaths) -> Listing {
        let me = (try? DeviceIdentity.load(from: paths.identity))?.signingKey.publicKey
        guard let account = AccountKeyFile(path: paths.accountKey).read(),
              let roster = RosterFile(path: paths.roster).read(account: account) else {
            return Listing(account: nil, version: nil, devices: [], member: false)
        }
        let homebase = HomebaseKeyFile(path: paths.homebaseKey).read()
        let devices = roster.records.map {
            Listing.Device(key: $0.signingKey.hex, name: $0.name, thisDevice: $0.signingKey == me, homebase: $0.signingKey == homebase)
        }
        return Listing(account: account.hex, version: roster.version, devices: devices, member: devices.contains { $0.thisDevice })
    }
}
