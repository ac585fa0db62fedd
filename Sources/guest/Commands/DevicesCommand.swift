import CommandLineKit
import Foundation
import GuestAgent
import Sealing
import Signing
import Wire

/// `guest devices`: the account's roster as this device holds it (after reading the relay's mail).
enum DevicesCommand {
    static let command = Command(
        name: "devices", summary: "list your account's devices (the roster this device holds)",
        usage: "[--json]",
        details: "Reads the relay's mail first (a newer roster replaces the one on file), then lists the roster:\n"
            + "each device's key and name, which one is this device, which are Homebases (their adverts reached this\n"
            + "device) and which Homebase this device routes to (\"in use\"). Devices are added with\n"
            + "`homebase pair` / `guest pair CODE` and removed on the Homebase with `homebase devices remove KEY`.",
        flags: [Flag("--json", "print the roster as JSON")] + Flag.relayLink,
        run: run)

    static func run(_ inv: Invocation) async throws -> Int32 {
        guard inv.positionals.isEmpty else { throw inv.usageError("unexpected argument \(inv.positionals[0])") }
        return try await inv.withLinkedContext { context, _ in
            let listing = DeviceListing.gather(context.paths, database: context.routingDatabase)
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
                let tags = DeviceListing.tags(d)
                Console.out("  \(d.key)  \(Printable.escape(d.name))\(tags.isEmpty ? "" : "  (\(tags.joined(separator: ", ")))")\n")
            }
            if !listing.member {
                Console.out("this device is not in the roster: it was removed from the account\n")
            }
            return 0
        }
    }
}
