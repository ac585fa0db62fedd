import CommandLineKit
import Basics
import Foundation
import GuestAgent
import Sealing
import Signing

/// `guest init`: the device identity (0600 key files) and its public record; `--account`
/// stores the account key a roster will be trusted from.
enum InitCommand {
    static let command = Command(
        name: "init", summary: "create this device's identity and print its public record",
        usage: "[--name NAME] [--account KEY]",
        details: "Keys are written to DATA-DIR/identity (mode 0600) and never leave the device. An identity\n"
            + "that exists is kept and printed again. The first output line is the record in hex: give it to\n"
            + "the account owner to add this device.",
        flags: [Flag("--name", "NAME", "device name shown to others (1 to 64 bytes; default: the host name)"),
                Flag("--account", "KEY", "the account key (64 hex digits) to trust a roster from")],
        run: run)

    static func run(_ inv: Invocation) async throws -> Int32 {
        guard inv.positionals.isEmpty else { throw inv.usageError("unexpected argument \(inv.positionals[0])") }
        let account: PublicKey?
        if let hex = inv.arguments.value("--account") {
            guard let key = PublicKey(hex: hex.trimmingCharacters(in: .whitespaces)) else {
                throw inv.usageError("--account: \(GuestError.badAccountKey)")
            }
            account = key
        } else {
            account = nil
        }
        let name = inv.arguments.value("--name") ?? ProcessInfo.processInfo.hostName
        guard (1...DeviceRecord.maxNameBytes).contains(name.utf8.count) else {
            throw inv.usageError("--name must be 1 to \(DeviceRecord.maxNameBytes) bytes")
        }
        let paths = try inv.configuration.paths
        try paths.create()
        let identity: DeviceIdentity
        let existed = FileManager.default.fileExists(atPath: paths.identity + "/" + DeviceIdentity.signingKeyFile)
        if existed {
            identity = try DeviceIdentity.load(from: paths.identity)
        } else {
            let now = UInt64(wallClockMs())
            identity = try DeviceIdentity.generate(name: name, now: now)
            try identity.save(to: paths.identity)
        }
        if let account { try AccountKeyFile(path: paths.accountKey).write(account) }
        let r = identity.record
        Console.out(hexString(r.encoded) + "\n")
        Console.out("""
            \(existed ? "existing" : "new") device \"\(r.name)\" in \(paths.identity)
              signing key \(r.signingKey.hex)
              HPKE key    \(hexString(r.hpkeKey.bytes))
              created     \(Date(timeIntervalSince1970: Double(r.createdAt) / 1000))
              account     \(AccountKeyFile(path: paths.accountKey).read()?.hex ?? "none (guest init --account KEY)")

            """)
        return 0
    }
}
