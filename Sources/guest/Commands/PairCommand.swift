import CommandLineKit
import Foundation
import GuestAgent
import Pairing
import Sealing
import Basics

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
        if let d = try inv.positiveDuration("--wait") { options.answerWait = d }
        if let d = try inv.positiveDuration("--connect-timeout") { options.connectTimeout = d }
        let name = inv.arguments.value("--name") ?? ProcessInfo.processInfo.hostName
        guard (1...DeviceRecord.maxNameBytes).contains(name.utf8.count) else {
            throw inv.usageError("--name must be 1 to \(DeviceRecord.maxNameBytes) bytes")
        }
        let now = wallClockMs()
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
                context.log.write("paired with \(r.homebase.signingKey.short): roster \(r.rosterVersion)")
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
