import Foundation
import GuestAgent
import Pairing
import Sealing

/// `guest pair CODE`: joins this device to the account whose Homebase printed CODE.
enum PairCommand {
    static let command = Command(
        name: "pair", summary: "join your account with a code from `homebase pair`",
        usage: "CODE [--name NAME] [--wait TIME] [--connect-timeout TIME]",
        details: "On the Homebase (the workstation holding the account key) run `homebase pair`; it prints a\n"
            + "one-time code (valid 10 minutes). Run `guest pair CODE` here: this device gets an identity if it has\n"
            + "none, joins through the relay named in the code, and stores the account, its roster and the relay.\n"
            + "Both screens then show the same confirmation number; if they differ, remove the device on the Homebase.",
        flags: [Flag("--name", "NAME", "this device's name if it has no identity yet (default: the host name)"),
                Flag("--wait", "TIME", "longest wait for the Homebase's answer (default 30s)"),
                Flag("--connect-timeout", "TIME", "relay connect and handshake, each (default 10s)")],
        run: run)

    static let whereToGetACode = """
        no code given. This device does not hold the account key, so it cannot issue one: on your Homebase
        (the workstation where you ran `homebase init`, with `homebase run` running) run `homebase pair`,
        then run `guest pair CODE` here with the code it prints
        """

    static func run(_ inv: Invocation) async throws -> Int32 {
        guard let raw = inv.positionals.first else { throw inv.usageError(whereToGetACode) }
        guard inv.positionals.count == 1 else { throw inv.usageError("give the code as one argument (quote it if it has spaces)") }
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
