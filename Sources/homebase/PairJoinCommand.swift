import CommandLineKit
import Foundation
import HomebaseAgent
import Pairing
import Sealing
import Signing
import Wire

/// `homebase pair -` (the code on stdin) or `homebase pair CODE`: a second workstation joins the account whose first Homebase printed
/// CODE. The exchange and its checks are `PairExchange` (the same as `guest pair CODE`); this
/// stores the verified roster (the account public key is in it; the private key never leaves
/// the first Homebase) and the code's relay in the config when none is set. A Homebase that
/// holds an account key heads its own account and is refused: nothing is changed.
enum PairJoinCommand {
    static let usage = """
        usage: homebase pair - [--name NAME] [--wait 30s] [--connect-timeout 10s]
        joins this workstation to your account with a code from `homebase pair` on the account's first Homebase,
        read from standard input (paste it, or pipe it in). `homebase pair CODE` works too, but leaves the code
        in the process list and shell history (warned).
          --name NAME            this Homebase's name if it has no identity yet (default: the host name)
          --wait TIME            longest wait for the first Homebase's answer (default 30s)
          --connect-timeout TIME relay connect and handshake, each (default 10s)
        It gets an identity if it has none (no account key: rosters stay signed on the first Homebase),
        stores the account's signed roster and the code's relay (in the config file when none is set).
        Both screens then show the same confirmation number; if they differ, remove this device there.
        A Homebase that ran `homebase init` heads its own account and cannot join another.
        """

    static func run(_ f: ParsedArguments, _ c: HomebaseCLI.Context) async throws -> Int32 {
        guard f.positionals.count == 1 else { throw UsageError.invalid("give the code on stdin (homebase pair -), or as one argument") }
        var options = PairExchange.Options()
        func duration(_ flag: String) throws(UsageError) -> Duration? { try f.duration("--\(flag)", above: .zero) }
        if let d = try duration("wait") { options.answerWait = d }
        if let d = try duration("connect-timeout") { options.connectTimeout = d }
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "homebase"
        let name = f.value("--name") ?? (host.isEmpty ? "homebase" : String(host.prefix(DeviceRecord.maxNameBytes)))
        guard (1...DeviceRecord.maxNameBytes).contains(name.utf8.count) else {
            throw UsageError.invalid("--name must be 1 to \(DeviceRecord.maxNameBytes) bytes")
        }
        var text = f.positionals[0]
        if text == SecretLine.stdinWord {
            guard let line = SecretLine.read(prompt: "pairing code: ") else {
                throw UsageError.invalid("no code on standard input: paste the code `homebase pair` printed, or pipe it in")
            }
            text = line
        } else {
            FileHandle.standardError.write(Data(SecretLine.argvWarning("pairing code", instead: "homebase pair -").utf8))
        }
        let code: PairingCode
        do {
            code = try PairingCode(parsing: text)
            guard nowMs() < code.expiresMs else { throw PairingError.expired(atMs: code.expiresMs) }
        } catch let e as PairingError {
            err("homebase pair: \(e)")
            return 1
        }
        guard !c.files.holdsAccountKey else { throw HomebaseError.headsOwnAccount(dataDir: c.files.dataDir) }

        let identity: DeviceIdentity
        if c.files.isInitialized {
            identity = try c.files.loadIdentity()
        } else {
            identity = try c.files.createIdentity(name: name, nowMs: nowMs())
            out("new Homebase identity \"\(name)\" \(identity.signingKey.publicKey.hex)")
        }
        let welcome: PairExchange.Welcome
        do {
            welcome = try await PairExchange(identity: identity, options: options).run(code, nowMs: nowMs())
        } catch {
            err("homebase pair: \(error)")
            return 1
        }
        let store = try c.files.openStore()
        defer { store.close() }
        let held = (try store.accountPublicKey(), try store.roster()?.version ?? 0)
        if let account = held.0, account != welcome.accountKey {
            out("note: this Homebase leaves account \(account.short) for the one that answered")
        }
        if held.0 != welcome.accountKey || welcome.roster.version >= held.1 {
            try store.storeRoster(welcome.roster, records: welcome.records, nowMs: nowMs())
        }
        let relayNote = try rememberRelay(code, c)
        // The account's proof for this Homebase at the relay (presented while it runs).
        if let proof = welcome.relayProof {
            try? RelayProofFile(dataDir: c.files.dataDir).write(.init(accountKey: welcome.accountKey, proof: proof))
        }

        let inviter = welcome.inviter
        out("""
            joined the account of Homebase "\(inviter.name)" \(inviter.signingKey.hex) through \(code.relayURL)
            account key: \(welcome.accountKey.hex)
            roster version \(welcome.roster.version): \(welcome.records.count) device(s)
            confirmation: \(welcome.confirmation)   (the first Homebase shows the same; if not, run `homebase devices remove \(identity.signingKey.publicKey.hex)` there)
            \(relayNote)
            next: store an engine (`\(command(c)) runtime add URL`), then start `\(command(c)) run`: it serves the account's devices.
            Devices are added and removed on "\(inviter.name)"; this Homebase follows the rosters it mails.
            """)
        return 0
    }

    /// Writes the code's relay (and pin) to the config file when it names none.
    static func rememberRelay(_ code: PairingCode, _ c: HomebaseCLI.Context) throws -> String {
        let settings = try Settings.load(path: c.configPath, explicit: false)
        if let relay = settings.values["relay"] {
            return relay == code.relayURL ? "relay: \(relay) (already in \(c.configPath))"
                : "note: \(c.configPath) names relay \(relay), not the code's \(code.relayURL); `homebase run` uses \(relay)"
        }
        var lines = ["relay = \(code.relayURL)"]
        if !code.alternates.isEmpty { lines.append("relay-alternates = \(code.alternates.joined(separator: ","))") }
        if let pin = code.pin { lines.append("pin = \(hex(pin))") }
        try Settings.append(lines, to: c.configPath)
        return "relay \(code.relayURL) written to \(c.configPath)"
    }

    /// `homebase` with the data directory and config named when they are not the defaults.
    static func command(_ c: HomebaseCLI.Context) -> String {
        var words = ["homebase"]
        if c.files.dataDir != HostFiles.defaultDataDir(environment: c.environment) { words += ["--data-dir", c.files.dataDir] }
        if c.configExplicit { words += ["--config", c.configPath] }
        return words.joined(separator: " ")
    }
}
