import CommandLineKit
import Foundation
import GuestAgent
import PeerLink
import Sealing

/// `guest relay set URL [--pin SHA256] [--homebase RECORD] | show | unset`: the account's
/// relay and the Homebase's record (the explicit record exchange), in `DATA-DIR/relay.json`.
enum RelayCommand {
    static let command = Command(
        name: "relay", summary: "set the relay this device reaches its Homebase through",
        usage: "set URL [--also URL,URL] [--pin SHA256] [--homebase RECORD] | show | unset",
        details: "URL is ws://HOST:PORT or wss://HOST[:PORT] (path /v1/connect unless given). --pin trusts exactly\n"
            + "the certificate with that SHA-256 (a self-signed relay). RECORD is the Homebase's device record in hex,\n"
            + "as `homebase init` printed it: the guest needs it to open the first roster the Homebase mails.\n"
            + "--also names the other nodes of the relay's cluster: dialled in turn after URL when a connection fails.\n"
            + "Example: guest relay set wss://relay.example.com --homebase 01ab…",
        flags: [Flag("--also", "URL,URL", "other nodes of the same relay cluster (same scheme as URL)"),
                Flag("--pin", "SHA256", "the relay certificate's SHA-256 (64 hex digits)"),
                Flag("--homebase", "RECORD", "the Homebase's device record, hex (homebase init prints it)")],
        run: run)

    static func run(_ inv: Invocation) async throws -> Int32 {
        let p = inv.positionals
        let paths = try inv.configuration.paths
        let file = RelayFile(path: paths.relaySetting)
        switch p.first {
        case "set":
            guard p.count == 2 else { throw inv.usageError("relay set takes one URL") }
            do { _ = try RelayURL(parsing: p[1]) } catch { throw inv.usageError("\(p[1]): \(error)") }
            var setting = RelayFile.Setting(url: p[1])
            if let also = inv.arguments.value("--also") {
                let urls = also.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                do {
                    var check = try PeerLink.Configuration(relayURL: p[1])
                    try check.addAlternates(urls)
                } catch { throw inv.usageError("--also: \(error)") }
                setting.alternates = urls
            }
            if let pin = inv.arguments.value("--pin") {
                do { _ = try PeerLink.Trust.pinned(hex: pin) } catch { throw inv.usageError("--pin: \(error)") }
                setting.pin = pin
            }
            if let record = inv.arguments.value("--homebase") {
                setting.homebase = record.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
                guard setting.homebaseRecord != nil else {
                    throw inv.usageError("--homebase: not a device record that verifies (copy the hex `homebase init` printed)")
                }
            } else {
                setting.homebase = try file.read()?.homebase  // keep the record already on file
            }
            try paths.create()
            try file.write(setting)
            Console.out("relay \(setting.url)\(setting.pin == nil ? "" : " (pinned)") stored in \(file.path)\n")
            if let r = setting.homebaseRecord { Console.out("homebase \"\(r.name)\" \(r.signingKey.hex)\n") }
        case "show":
            guard p.count == 1 else { throw inv.usageError("relay show takes no argument") }
            guard let s = try file.read() else { Console.out("no relay (guest relay set URL)\n"); return 0 }
            Console.out("relay:    \(s.url)\(s.pin.map { " pin \($0)" } ?? "")\n")
            if let more = s.alternates, !more.isEmpty { Console.out("also:     \(more.joined(separator: ", "))\n") }
            Console.out("homebase: \(s.homebaseRecord.map { "\"\($0.name)\" \($0.signingKey.hex)" } ?? "no record")\n")
        case "unset":
            guard p.count == 1 else { throw inv.usageError("relay unset takes no argument") }
            file.remove()
            Console.out("relay unset: Homebase routes now answer on this device\n")
        default:
            throw inv.usageError(p.first.map { "unknown subcommand \($0)" } ?? "say set, show or unset")
        }
        return 0
    }
}
