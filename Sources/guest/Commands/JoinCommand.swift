import CommandLineKit
import Foundation
import GuestAgent
import Pairing
import PeerLink
import Sealing
import Wire
import Basics

/// `guest join -` (the invite on stdin; prompted on a terminal when omitted) or `guest join INVITE`:
/// use a friend's Homebase (the invite came from `homebase share`).
enum JoinCommand {
    static let command = Command(
        name: "join", summary: "join another account's Homebase with the invite its owner sent you",
        usage: "[--as NAME] [--wait TIME] [--pin SHA256] -      (the invite on stdin; or INVITE)",
        details: "Reads the invite from standard input (`guest join -`, paste it or pipe it in; plain `guest join` prompts\n"
            + "on a terminal). An invite given as an argument works too, but stays in the process list and shell history\n"
            + "(warned). Checks the invite here (mangled, expired), creates this device's identity if there is none, keeps\n"
            + "the Homebase as invited (an invitation not accepted never routes), sends a sealed join through the\n"
            + "invite's relay and waits for the answer. The invite's relay may differ from this device's own\n"
            + "(guest relay set): the guest then keeps a link to each. Invites carry no certificate pin: a wss://\n"
            + "relay is checked against the system roots unless --pin gives its certificate's SHA-256 (a relay that\n"
            + "is also this device's own uses the pin of guest relay set).\n"
            + "Once joined, select one of its models:\n"
            + "  guest settings set model.source external\n"
            + "  guest settings set ollama.host HOST-KEY\n"
            + "  guest settings set ollama.model MODEL\n"
            + "If the owner approves joins by hand, the grant arrives later by mail (guest status shows it).",
        flags: [Flag("--as", "NAME", "how your account is shown to the owner (default: this device's name)"),
                Flag("--wait", "TIME", "longest wait for the answer: 250ms, 10s, 2m (default 20s)"),
                Flag("--pin", "SHA256", "the invite's relay certificate's SHA-256 (64 hex digits), kept with this Homebase")]
            + Flag.relayLink,
        run: run)

    static func run(_ inv: Invocation) async throws -> Int32 {
        guard inv.positionals.count <= 1 else { throw inv.usageError("give the invite on stdin (guest join -), or as one hb-invite-… argument") }
        let wait = try inv.duration("--wait") ?? .seconds(20)
        let nameFlag = inv.arguments.value("--as")
        if let n = nameFlag, !(1...64).contains(n.utf8.count) { throw inv.usageError("--as takes 1 to 64 bytes") }
        if let bad = nameFlag.flatMap(Printable.firstUnsafe) {
            throw inv.usageError("--as holds a control character (U+\(String(bad.value, radix: 16, uppercase: true))): give plain text")
        }
        let pin = inv.arguments.value("--pin")
        if let pin { do { _ = try PeerLink.Trust.pinned(hex: pin) } catch { throw inv.usageError("--pin: \(error)") } }
        let text: String
        if let given = inv.positionals.first, given != SecretLine.stdinWord {
            Console.err(SecretLine.argvWarning("invite", instead: "guest join -"))
            text = given
        } else {
            guard let line = SecretLine.read(prompt: "invite (hb-invite-…, from `homebase share`): ", limit: 16 * 1024) else {
                throw inv.usageError("no invite on standard input: paste the hb-invite-… text the owner sent you, or pipe it in")
            }
            text = line
        }
        let checked = try GuestJoin.check(text, nowMs: wallClockMs())
        let host = checked.host
        let (identity, created) = try await prepared(inv, checked, pin: pin)
        if created { Console.out("created this device's identity \(identity.signingKey.publicKey.hex)\n") }
        Console.out("joining Homebase \"\(host.name)\" \(host.signingKey.hex) via \(checked.invite.relayURL)\n")
        return try await inv.withLinks { context, links in
            guard let links else { throw GuestError.join("the relay link did not open (see guest.log)") }
            let answer = try await GuestJoin.send(checked, identity: identity, accountName: nameFlag ?? identity.record.name,
                                                  links: links, context: context, wait: wait)
            switch answer {
            case .joined(let models):
                let offered = models.isEmpty ? "none of the granted models is served right now" : models.joined(separator: ", ")
                Console.out("""
                    joined: models \(offered)
                    to use it: guest settings set model.source external
                               guest settings set ollama.host \(host.signingKey.hex)
                               guest settings set ollama.model \(models.first ?? "MODEL")

                    """)
                return 0
            case .refused(let why):
                throw GuestError.join("the Homebase refused the join: \(why)")
            case .noAnswerYet:
                Console.out("join sent; no answer yet: the Homebase may be offline or its owner approves joins by hand "
                            + "(homebase grants approve). The grant arrives by mail: guest status shows it.\n")
                return 0
            }
        }
    }

    /// The identity (named after this machine when created) and the host on file as invited.
    static func prepared(_ inv: Invocation, _ checked: GuestJoin.Checked, pin: String?) async throws -> (DeviceIdentity, Bool) {
        try await withoutEngine(inv) { context in
            let host = String(ProcessInfo.processInfo.hostName.prefix(32))
            return try GuestJoin.prepare(checked, context: context, name: host.isEmpty ? "guest" : host, pin: pin)
        }
    }

    /// A context for file work only (the engine never starts).
    static func withoutEngine<T: Sendable>(_ inv: Invocation, _ body: (GuestContext) throws -> T) async throws -> T {
        let context = try GuestContext(try inv.configuration)
        do {
            let value = try body(context)
            await context.shutdown()
            return value
        } catch {
            await context.shutdown()
            throw error
        }
    }
}
