import Basics
import CommandLineKit
import Foundation
import HomebaseAgent
import Sealing
import Signing
import Wire

/// The short commands (everything but `run`). Each returns its exit status or throws.
enum Commands {
    static func initialize(_ f: ParsedArguments, _ c: HomebaseCLI.Context) throws -> Int32 {
        guard f.positionals.isEmpty else { throw UsageError.invalid("init takes no arguments") }
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "homebase"
        let name = String((f.value("--name") ?? host).prefix(64))
        let result = try c.files.initialize(name: name.isEmpty ? "homebase" : name, nowMs: nowMs())
        out("device key: \(result.identity.signingKey.publicKey.hex)")
        if let account = result.accountKey { out("account key: \(account.hex)") }
        out("roster version: \(result.rosterVersion)")
        out("device record: \(hex(result.identity.record.encoded))")
        return 0
    }

    static func status(_ f: ParsedArguments, _ c: HomebaseCLI.Context) throws -> Int32 {
        guard f.positionals.isEmpty else { throw UsageError.invalid("status takes no arguments") }
        if let listen = f.value("--serve") { return try StatusPage.serve(listen, files: c.files) }
        let s = try HostStatus.read(c.files)
        if f.has("--json") {
            let e = JSONEncoder()
            e.outputFormatting = [.prettyPrinted, .sortedKeys]
            out(String(decoding: try e.encode(s), as: UTF8.self))
        } else {
            out(StatusText.render(s, nowMs: nowMs()))
        }
        return 0
    }

    static func devices(_ f: ParsedArguments, _ c: HomebaseCLI.Context) throws -> Int32 {
        let usage = "usage: homebase devices [list] | add RECORD | remove KEY   (no argument: list)"
        let identity = try c.files.loadIdentity()
        let store = try c.files.openStore()
        defer { store.close() }
        switch (f.positionals.first, f.positionals.count) {
        case (nil, 0), ("list", 1):
            let me = identity.signingKey.publicKey
            for d in try store.devices() {
                out("\(d.record.signingKey.hex)  \(Printable.escape(d.record.name))\(d.record.signingKey == me ? "  (this Homebase)" : "")")
            }
        case ("add", 2):
            guard let bytes = Basics.bytes(fromHex: f.positionals[1].trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw HomebaseError.invalidRecord("not hex")
            }
            let record: DeviceRecord
            do { record = try DeviceRecord(encoded: bytes) } catch {
                throw HomebaseError.invalidRecord("its signature does not verify, a length is wrong, its HPKE key is of small order "
                                                  + "or its name holds control characters")
            }
            guard record.signingKey != identity.signingKey.publicKey else { throw HomebaseError.selfDevice }
            let roster = try store.addDevice(record, accountKey: try c.files.accountKeyForChanges(store), nowMs: nowMs())
            out("added \(record.signingKey.hex) (\(record.name)); roster version \(roster.version)")
        case ("remove", 2):
            guard let key = PublicKey(hex: f.positionals[1]) else { throw HomebaseError.invalidKey(f.positionals[1]) }
            let roster = try store.removeDevice(key, host: identity.signingKey.publicKey, accountKey: try c.files.accountKeyForChanges(store))
            // The running agent tells the relay (a revocation), so the device's proof stops working.
            try RevocationLog(dataDir: c.files.dataDir).append(.init(device: key, rosterVersion: roster.version,
                                                                      removedSeconds: RelayAdmission.nowSeconds))
            out("removed \(key.hex); roster version \(roster.version); any pairing code it used is retired (it cannot rejoin with it)")
        default:
            throw UsageError.invalid(usage)
        }
        return 0
    }

    static func runtime(_ f: ParsedArguments, _ c: HomebaseCLI.Context) async throws -> Int32 {
        let usage = "usage: homebase runtime add [URL] | list | remove URL"
        _ = try c.files.loadIdentity()
        let store = try c.files.openStore()
        defer { store.close() }
        switch (f.positionals.first, f.positionals.count) {
        case ("list", 1):
            for r in try store.runtimes() {
                let models = r.models.map(\.tag).joined(separator: ", ")
                out("\(r.url)  \(r.kind.rawValue)  \(r.available ? "available" : "unavailable")  [\(models)]"
                    + (r.lastError.map { "  last error: \($0)" } ?? ""))
            }
        case ("add", 1), ("add", 2):
            let url = f.positionals.count == 2 ? f.positionals[1] : "http://127.0.0.1:11434"
            let report = try await RuntimeVerifier(store: store).add(url: url)
            out("stored \(url): \(report.kind.rawValue)\(report.version.map { " \($0)" } ?? ""), "
                + "\(report.models.filter(\.mayComplete).count) chat model(s): "
                + report.models.filter(\.mayComplete).map(\.tag).joined(separator: ", "))
        case ("remove", 2):
            try store.removeRuntime(url: f.positionals[1])
            out("removed \(f.positionals[1])")
        default:
            throw UsageError.invalid(usage)
        }
        return 0
    }
}
