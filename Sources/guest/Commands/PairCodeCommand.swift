import CommandLineKit
import Foundation
import GuestAgent
import Pairing
import Sealing
import Basics

/// `guest pair` with no code, on a device of the account: the Homebase issues a code (this device
/// does not hold the account key), this device prints it and waits for the new device.
enum PairCodeCommand {
    static func run(_ inv: Invocation) async throws -> Int32 {
        var options = PairCodeAsk.Options()
        if let d = try inv.positiveDuration("--valid") {
            let ms = d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
            guard ms >= 1, ms <= Int64(UInt32.max) else { throw inv.usageError("--valid takes 1ms to 49 days: 90s, 10m") }
            options.validMs = UInt32(ms)
        }
        if let text = inv.arguments.value("--tries") {
            guard let n = Int(text), (1...100).contains(n) else { throw inv.usageError("--tries takes a whole number from 1 to 100") }
            options.maxTries = UInt8(n)
        }
        let wait = try inv.positiveDuration("--wait")
        if let d = try inv.positiveDuration("--connect-timeout") { options.connectTimeout = d }
        if let d = try inv.positiveDuration("--answer-timeout") { options.answerWait = d }
        if inv.arguments.has("--name") { throw inv.usageError("--name is for `guest pair CODE` (naming a new device)") }
        let paths = try inv.configuration.paths
        guard let account = PairingAccount.load(paths) else { throw inv.usageError(PairCommand.whereToGetACode) }
        let homebase = "\"\(account.homebase.name)\" (\(account.homebase.signingKey.short))"
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
                if let deadline, ContinuousClock.now >= deadline, wallClockMs() < code.expiresMs {
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
