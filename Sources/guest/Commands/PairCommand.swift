import Foundation
import GuestAgent
import Pairing
import Sealing

/// `guest pair -` (the code on stdin) or `guest pair CODE`: joins this device to the account whose
/// Homebase printed the code. `guest pair` (no code) on a device of the account: asks the
/// Homebase for a code (below); on any other device: prompts for the code (or reads stdin).
enum PairCommand {
    static let command = Command(
        name: "pair", summary: "join your account with a code, or (no code, on a paired device) get a code for a new one",
        usage: "- [--name NAME] [--wait TIME] [--connect-timeout TIME]      (the code on stdin; or CODE)\n"
            + "       guest pair [--valid TIME] [--tries N] [--wait TIME] [--no-wait] [--answer-timeout TIME] [--connect-timeout TIME]",
        details: "With a code: on the Homebase (the workstation holding the account key) run `homebase pair`, or\n"
            + "`guest pair` on a device already paired; it prints a one-time code (valid 10 minutes). Run\n"
            + "`guest pair -` here and paste the code (or pipe it in; on a device not paired yet, plain `guest pair`\n"
            + "prompts for it). `guest pair CODE` works too, but leaves the code in the process list and shell\n"
            + "history (warned). This device gets an identity if it has none, joins through the relay named in\n"
            + "the code, and stores the account, its roster and the relay. The screens then show the same\n"
            + "confirmation number; if they differ, remove the device on the Homebase.\n\n"
            + "Without a code, on a device already in the account: asks the Homebase (`homebase run` must be\n"
            + "running there) for a code, prints it, then waits until the new device has joined and prints its\n"
            + "name and the confirmation number (exit 1 at once if wrong tries burn the code). --wait is then the\n"
            + "longest wait for the new device (default: until the code expires).",
        flags: [Flag("--name", "NAME", "this device's name if it has no identity yet (default: the host name)"),
                Flag("--wait", "TIME", "with a code: longest wait for the Homebase's answer (default 30s); without: for the new device"),
                Flag("--connect-timeout", "TIME", "relay connect and handshake, each (default 10s; 5s without a code)"),
                Flag("--valid", "TIME", "without a code: how long the code stays valid (default 10m)"),
                Flag("--tries", "N", "without a code: wrong attempts that burn the code, 1 to 100 (default 3)"),
                Flag("--no-wait", "without a code: print the code and return"),
                Flag("--answer-timeout", "TIME", "without a code: longest wait for the Homebase's code (default 30s)")],
        run: run)

    static let whereToGetACode = """
        no code given, and this device is not a device of an account yet (no account key, relay and Homebase
        on file), so it cannot ask for one: on your Homebase (the workstation where you ran `homebase init`,
        with `homebase run` running) run `homebase pair`, then run `guest pair -` here and paste the code it prints
        """

    static let askFlags = ["--valid", "--tries", "--no-wait", "--answer-timeout"]

    static func run(_ inv: Invocation) async throws -> Int32 {
        let raw: String
        switch inv.positionals.first {
        case nil:
            // A device of the account asks the Homebase for a code; any other is given one.
            let paths = try inv.configuration.paths
            if askFlags.contains(where: inv.arguments.has) || PairingAccount.load(paths) != nil {
                return try await PairCodeCommand.run(inv)
            }
            guard let line = SecretLine.read(prompt: "pairing code (from `homebase pair`): ") else {
                throw inv.usageError(whereToGetACode)
            }
            raw = line
        case SecretLine.stdinWord?:
            guard let line = SecretLine.read(prompt: "pairing code: ") else {
                throw inv.usageError("no code on standard input: paste the code `homebase pair` printed, or pipe it in")
            }
            raw = line
        case let code?:
            Console.err(SecretLine.argvWarning("pairing code", instead: "guest pair -"))
            raw = code
        }
        for flag in askFlags where inv.arguments.has(flag) {
            throw inv.usageError("\(flag) is for `guest pair` without a code (asking the Homebase for one)")
        }
        guard inv.positionals.count <= 1 else { throw inv.usageError("give the code as one argument (quote it if it has spaces), or - to read it") }
        var options = PairJoin.Options()
        func duration(_ flag: String) throws -> Duration? {
            guard let text = inv.arguments.value(flag) else { return nil }
            guard let d = Flag.duration(text), d > .zero else { throw inv.usageError("\(flag) takes a duration: 500ms, 30s, 2m") }
            return d
        }
        if let d = try duration("--wait") { options.answerWait = d }
        if let d = try duration("--connect-timeout") { options.connectTimeout = d }
        let name = inv.arguments.value("--name") ?? ProcessInfo.processInfo.hostName
        guard (1...DeviceRecord.maxNameBytes).contains(name.utf8.count) else {
            throw inv.usageError("--name must be 1 to \(DeviceRecord.maxNameBytes) bytes")
        }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        // Everything that can be told without the network is told first: nothing is created.
        let code: PairingCode
        do {
            code = try PairingCode(parsing: raw)
            guard now < code.expiresMs else { throw PairingError.expired(atMs: code.expiresMs) }
        } catch let e as PairingError {
            Console.err("guest pair: \(e)\n")
            return 1
        }
        return try await inv.withContext { context in
            let paths = context.paths
            let identity: DeviceIdentity
            if FileManager.default.fileExists(atPath: paths.identity + "/" + DeviceIdentity.signingKeyFile) {
                identity = try DeviceIdentity.load(from: paths.identity)
            } else {
                identity = try DeviceIdentity.generate(name: name, now: UInt64(now))
                try identity.save(to: paths.identity)
                Console.out("new device \"\(name)\" \(identity.signingKey.publicKey.hex)\n")
            }
            do {
                let r = try await PairJoin(paths: paths, identity: identity, options: options)
                    .run(code, database: context.routingDatabase, nowMs: now)
                context.log.write("paired with \(r.homebase.signingKey.hex.prefix(16))…: roster \(r.rosterVersion)")
                Console.out("""
                    paired with Homebase "\(r.homebase.name)" \(r.homebase.signingKey.hex) through \(code.relayURL)
                    account key: \(r.accountKey.hex)
                    roster version \(r.rosterVersion): \(r.devices) device(s)\(r.advertStored ? "; the Homebase's models are on file" : "")
                    confirmation: \(r.confirmation)   (the Homebase shows the same; if not, remove this device there)

                    """)
                return 0
            } catch {
                context.log.write("pairing failed: \(error)")
                Console.err("guest pair: \(error)\n")
                return 1
            }
        }
    }
}

/// `guest pair` with no code, on a device of the account: the Homebase issues a code (this device
/// does not hold the account key), this device prints it and waits for the new device.
enum PairCodeCommand {
    static func run(_ inv: Invocation) async throws -> Int32 {
        var options = PairCodeAsk.Options()
        func duration(_ flag: String) throws -> Duration? {
            guard let text = inv.arguments.value(flag) else { return nil }
            guard let d = Flag.duration(text), d > .zero else { throw inv.usageError("\(flag) takes a duration: 500ms, 30s, 10m") }
            return d
        }
        if let d = try duration("--valid") {
            let ms = d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
            guard ms >= 1, ms <= Int64(UInt32.max) else { throw inv.usageError("--valid takes 1ms to 49 days: 90s, 10m") }
            options.validMs = UInt32(ms)
        }
        if let text = inv.arguments.value("--tries") {
            guard let n = Int(text), (1...100).contains(n) else { throw inv.usageError("--tries takes a whole number from 1 to 100") }
            options.maxTries = UInt8(n)
        }
        let wait = try duration("--wait")
        if let d = try duration("--connect-timeout") { options.connectTimeout = d }
        if let d = try duration("--answer-timeout") { options.answerWait = d }
        if inv.arguments.has("--name") { throw inv.usageError("--name is for `guest pair CODE` (naming a new device)") }
        let paths = try inv.configuration.paths
        guard let account = PairingAccount.load(paths) else { throw inv.usageError(PairCommand.whereToGetACode) }
        let homebase = "\"\(account.homebase.name)\" (\(account.homebase.signingKey.hex.prefix(16))…)"
        return try await inv.withContext { context in
            let ask = try PairCodeAsk(account: account, context: context, options: options)
            defer {
                ask.stop()
                ServeAnnouncement.tellServe(context.paths, log: context.log)  // serve takes its link back now
            }
            let issued: PairCodeAsk.Issued
            do {
                try await ask.connect()
                switch try await ask.request() {
                case .issued(let i): issued = i
                case .refused(_, let text):
                    Console.err("guest pair: the Homebase \(homebase) refused to issue a code: \(text)\n")
                    return 1
                }
            } catch PairingError.inviterOffline {
                Console.err("guest pair: the Homebase \(homebase) is not connected to \(account.relay.url): `homebase run` "
                            + "must be running on it (it holds the account key and issues the code); start it, then try again\n")
                return 1
            } catch {
                context.log.write("pairing code: \(error)")
                Console.err("guest pair: \(error)\n")
                return 1
            }
            let code = issued.code
            Console.out("""
                pairing code from Homebase \(homebase) (single use, valid until \(PairingError.time(code.expiresMs)), \
                \(issued.maxTries) wrong tr\(issued.maxTries == 1 ? "y" : "ies") burn it):
                \(code.text)

                on the new device run: guest pair -   and paste the code

                """)
            if inv.arguments.has("--no-wait") { return 0 }
            Console.out("waiting for the new device (Ctrl-C stops waiting; the code stays valid)…\n")
            let deadline = wait.map { ContinuousClock.now + $0 }
            let joined: PairCodeAsk.Joined
            switch await ask.waitForNewDevice(issued, until: deadline) {
            case .joined(let j): joined = j
            case .burnt(let n):
                Console.err("guest pair: the code was burnt after \(n) wrong tr\(n == 1 ? "y" : "ies"): run `guest pair` again\n")
                return 1
            case .unusable(let outcome):
                Console.err("guest pair: the Homebase says the code can no longer be used (outcome \(outcome)): run `guest pair` again\n")
                return 1
            case .nothing:
                if let deadline, ContinuousClock.now >= deadline, Int64(Date().timeIntervalSince1970 * 1000) < code.expiresMs {
                    Console.out("stopped waiting; the code stays valid until \(PairingError.time(code.expiresMs))\n")
                    return 0
                }
                Console.err("guest pair: no device joined with the code before it expired: run `guest pair` again for a new one\n")
                return 1
            }
            let version = joined.rosterVersion.map { " (roster version \($0))" } ?? ""
            Console.out("""
                paired "\(joined.device.name)" \(joined.device.signingKey.hex)\(version)
                confirmation: \(joined.confirmation)   (the new device and the Homebase show the same; if not, run \
                `homebase devices remove \(joined.device.signingKey.hex)` on the Homebase)

                """)
            return 0
        }
    }
}
