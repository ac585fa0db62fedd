import CommandLineKit
import Foundation
import Glibc
import HomebaseAgent
import Pairing
import PeerLink
import Sealing
import Signing

/// `homebase pair`: issues a one-time code for a new device of the account, then (unless
/// `--no-wait`) waits until the running agent paired a device with it and prints the
/// confirmation the new device shows too. The agent (`homebase run`) answers the device: it
/// holds the key the code pins, and reads the code from the store. `homebase pair CODE` is the
/// other side: this workstation joins the account (`PairJoinCommand`).
enum PairCommand {
    static let usage = """
        usage: homebase pair [--relay URL] [--relay-alternates URL,URL] [--pin HEX] [--valid 10m] [--tries 3] [--no-wait] [--wait MAX]
               homebase pair - [--name NAME] [--wait 30s] [--connect-timeout 10s]   (the code on stdin; or CODE)
        prints a one-time code for a new device; on that device run `guest pair -` and paste it
        (or `homebase pair -` on a second workstation: see `homebase pair - --help`).
          --relay URL   the relay the new device joins through (default: `relay` of the config file)
          --relay-alternates URL,URL  other nodes of the relay's cluster the code names too
                        (default: `relay-alternates` of the config file, when --relay is its relay)
          --pin HEX     the relay certificate's SHA-256, for a self-signed relay (default: `pin` of the config)
          --valid TIME  how long the code stays valid (default 10m; e.g. 90s, 30m, 1h)
          --tries N     wrong attempts that burn the code (default 3)
          --no-wait     print the code and return (`homebase status` shows the pairing later)
          --wait MAX    stop waiting after MAX (default: until the code is used, burnt or expired)
        `homebase run` must be running here: it is what answers the new device.
        """

    static func run(_ f: ParsedArguments, _ c: HomebaseCLI.Context) async throws -> Int32 {
        if f.positionals.contains(SecretLine.stdinWord) || f.positionals.first?.lowercased().hasPrefix(PairingCode.prefix) == true {
            try refuse(joinOnly: false, f)
            return try await PairJoinCommand.run(f, c)
        }
        try refuse(joinOnly: true, f)
        guard f.positionals.isEmpty else {
            throw UsageError.invalid("pair takes no arguments, or a code starting with \(PairingCode.prefix) "
                                   + "(to join an account: `homebase pair -` here, or `guest pair -` on a laptop, then paste the code)")
        }
        let settings = try Settings.load(path: c.configPath, explicit: c.configExplicit)
        guard let relay = f.value("--relay") ?? settings.values["relay"] else {
            throw UsageError.invalid("no relay: pass --relay ws[s]://HOST[:PORT] or set `relay` in the config file")
        }
        do { _ = try RelayURL(parsing: relay) } catch { throw UsageError.invalid("--relay \(relay): \(error)") }
        let alternates = try settings.alternates(flag: f.value("--relay-alternates"), relay: relay)
        var pin: [UInt8]?
        if let hex = f.value("--pin") ?? settings.values["pin"] {
            guard case .pinnedSHA256(let bytes)? = try? PeerLink.Trust.pinned(hex: hex) else {
                throw UsageError.invalid("--pin takes 64 hex digits (the SHA-256 of the relay's certificate)")
            }
            pin = bytes
        }
        let validText = f.value("--valid") ?? "10m"
        guard let valid = Settings.parseDuration(validText), valid > .zero else {
            throw UsageError.invalid("--valid takes a duration above zero: 90s, 10m, 1h")
        }
        let range = PairingIssue.triesRange
        guard let tries = Int(f.value("--tries") ?? "\(PairingIssue.defaultTries)"), range.contains(tries) else {
            throw UsageError.invalid("--tries takes a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        var waitMax: Duration?
        if let w = f.value("--wait") {
            guard let d = Settings.parseDuration(w) else { throw UsageError.invalid("--wait takes a duration: 30s, 10m") }
            waitMax = d
        }

        let identity = try c.files.loadIdentity()
        let store = try c.files.openStore()
        defer { store.close() }
        _ = try c.files.accountKeyForChanges(store)  // only the device holding the account key can add devices
        let now = nowMs()
        let code = try PairingIssue.issue(files: c.files, store: store, inviter: identity.record, relayURL: relay,
                                          alternates: alternates, pin: pin,
                                          validMs: valid.wholeMilliseconds, maxTries: tries, nowMs: now)
        let expires = code.expiresMs

        out("pairing code (single use, valid until \(PairingError.time(expires)), \(tries) wrong tr\(tries == 1 ? "y" : "ies") burn it):\n")
        out(code.text)
        out("\non the new device run:\n  guest pair -\nand paste the code (on a second workstation: homebase pair -)\n")
        if !agentRunning(c.files) {
            err("homebase: note: `homebase run` is not running here; start it: it is what answers the new device")
        }
        if f.has("--no-wait") { return 0 }
        out("waiting for the new device (Ctrl-C stops waiting; the code stays valid)…")
        return try await wait(for: code, store: store, until: waitMax.map { ContinuousClock.now + $0 })
    }

    /// The flags of issuing a code (`joinOnly` false: refused when joining) or of joining.
    static let joinFlags: Set<String> = ["--name", "--connect-timeout"]
    static let issueFlags: Set<String> = ["--relay", "--relay-alternates", "--pin", "--valid", "--tries", "--no-wait"]

    /// One `pair` command takes both sides' flags; a flag of the other side is a usage error.
    static func refuse(joinOnly: Bool, _ f: ParsedArguments) throws(UsageError) {
        let wrong = (joinOnly ? joinFlags : issueFlags).sorted().filter(f.has)
        guard let flag = wrong.first else { return }
        throw joinOnly ? .invalid("\(flag) is for joining (homebase pair - or homebase pair CODE), not for issuing a code")
                       : .invalid("\(flag) is for issuing a code (homebase pair), not for joining with one")
    }

    /// Polls the store until the agent used or burnt the code, or it expired.
    static func wait(for code: PairingCode, store: HostStore, until deadline: ContinuousClock.Instant?) async throws -> Int32 {
        while true {
            guard let r = try store.pairing(code.codeID) else { err("homebase: the code was removed"); return 1 }
            switch r.state {
            case .used, .retired:
                out("paired \"\(r.deviceName ?? "?")\" (\(r.deviceKey?.hex ?? "?"))")
                out("confirmation: \(r.confirmation ?? "?")   (the new device shows the same; if not, run `homebase devices remove KEY`)")
                return 0
            case .burnt:
                err("homebase: the code was burnt after \(r.tries) wrong attempt(s): run `homebase pair` again")
                return 1
            case .open:
                if nowMs() >= r.expiresMs { err("homebase: the code expired unused: run `homebase pair` again"); return 1 }
            }
            if let deadline, ContinuousClock.now >= deadline {
                out("stopped waiting; the code stays valid until \(PairingError.time(r.expiresMs)) (`homebase status` shows the pairing)")
                return 0
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// True when `status.json` says an agent runs (and its process exists).
    static func agentRunning(_ files: HostFiles) -> Bool {
        guard let data = FileManager.default.contents(atPath: files.statusPath),
              let live = try? JSONDecoder().decode(HostStatus.Live.self, from: data) else { return false }
        return live.running && nowMs() <= live.staleAfterMs && kill(live.pid, 0) == 0
    }
}
