import CommandLineKit
import Foundation
import HomebaseAgent
import Pairing
import Sealing
import Signing
import Wire

/// `homebase share`: a new invite, printed as text to pass to a friend (`guest join -`, pasted).
enum ShareCommand {
    static let usage = """
        usage: homebase share [--models a,b] [--rate N/min] [--expires 7d] [--grant-expires TIME|never] [--uses N]
                              [--approve] [--tools] [--tokens N/day|N/month] [--relay URL]
                              [--relay-alternates URL,URL]
        prints an invite for another account's device (they run: guest join -, and paste it)
          --models a,b          models the grant allows (default: every model served now)
          --rate N/min          requests per minute the grant allows (default: no limit)
          --expires TIME        joins are refused after TIME: 30m, 12h, 7d (default 7d)
          --grant-expires TIME  the grants it makes end TIME from now, or `never` (default: when the
                                invite expires); not before --expires
          --uses N              devices that may join with it (default 1: single use)
          --approve             joins wait for `homebase grants approve ID` instead of being granted at once
          --tools               the friend may send requests that carry tools (coding agents, `guest chat
                                --tools`): your engine chooses the calls, their device runs them; without
                                it such requests are refused and answered on the friend's own device
          --tokens N/day        a token budget per friend device: prompt + completion tokens as your engine
                                reports them, per UTC day (or N/month); 200k = 200,000. Over it, requests are
                                answered `busy` with the reason and the friend's device answers on its own
                                (`homebase grants usage` shows the use). Default: no budget
          --relay URL           the relay named in the invite (default: `relay` of the config file)
          --relay-alternates URL,URL  other nodes of the relay's cluster the invite names too (default:
                                `relay-alternates` of the config file, when --relay is its relay)
        the first line printed is the invite; it holds a secret: send it only to the friend.
        `homebase grants revoke ID` ends a grant at any time (and retires its invite).
        """

    static func run(_ f: ParsedArguments, _ c: HomebaseCLI.Context) throws -> Int32 {
        guard f.positionals.isEmpty else { throw UsageError.invalid("share takes no arguments (see --help)") }
        let rate = try f.value("--rate").map(parseRate) ?? 0
        let budget = try f.value("--tokens").map { (v: String) throws(UsageError) -> TokenBudget in
            guard let b = TokenBudget.parse(v) else {
                throw UsageError.invalid("--tokens takes N/day or N/month, N a whole number or 200k, 1.5m (above 0): got \(v)")
            }
            return b
        }
        let expiresIn = try f.value("--expires").map { (v: String) throws(UsageError) in try parseLifetime(v) } ?? 7 * 86_400_000
        let grantFor = try f.value("--grant-expires").map { (v: String) throws(UsageError) in
            try parseGrantLifetime(v, invite: expiresIn)
        } ?? expiresIn
        let uses = try f.value("--uses").map { (v: String) throws(UsageError) -> Int in
            guard let n = Int(v), (1...1000).contains(n) else { throw UsageError.invalid("--uses takes 1 to 1000") }
            return n
        } ?? 1
        let settings = try Settings.load(path: c.configPath, explicit: c.configExplicit)
        guard let relay = f.value("--relay") ?? settings.values["relay"] else { throw HomebaseError.noRelay }
        let alternates = try settings.alternates(flag: f.value("--relay-alternates"), relay: relay)
        let identity = try c.files.loadIdentity()
        let store = try c.files.openStore()
        defer { store.close() }
        var models = f.value("--models").map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } ?? []
        models = models.filter { !$0.isEmpty }
        if f.value("--models") == nil {
            models = ModelCatalog(runtimes: try store.runtimes()).models.map(\.tag)
            guard !models.isEmpty else {
                throw HomebaseError.sharing("no model is served now: add a runtime (homebase runtime add) or pass --models a,b")
            }
        }
        guard !models.isEmpty else { throw UsageError.invalid("--models names at least one model") }
        let sharing = try c.files.openSharing()
        defer { sharing.close() }
        let now = nowMs()
        let secret = randomBytes(count: 32)
        try sharing.createInvite(StoredInvite(inviteID: Bytes16(unchecked: randomBytes(count: 16)), secret: secret,
                                              models: models, ratePerMinute: rate, expiresMs: now + expiresIn,
                                              maxUses: uses, uses: 0, approval: f.has("--approve"),
                                              createdMs: now, grantExpiresMs: grantFor == 0 ? 0 : now + grantFor,
                                              tools: f.has("--tools"), budget: budget))
        let invite = AppMessage.Invite(relayURL: relay, hostSigningKey: identity.signingKey.publicKey,
                                       hostHPKEKey: Bytes32(unchecked: identity.hpkeKey.publicKey.bytes),
                                       inviteSecret: Secret32(unchecked: secret), models: models,
                                       ratePerMinute: rate, expiresMs: UInt64(now + expiresIn),
                                       // The running agent tells the relay to admit it (RelayAdmission).
                                       admissionToken: AdmissionTokens.invite(secret: Secret32(unchecked: secret)),
                                       alternates: alternates)
        let code: String
        do { code = try InviteCode.encode(invite, hostRecord: identity.record.encoded) } catch {
            throw HomebaseError.sharing("the invite does not encode: \(error)")
        }
        out(code)
        let grantEnd = grantFor == 0 ? "the grant never expires (until revoked)"
            : "the grant expires \(PairingError.time(now + grantFor))"
        err("invite for [\(models.joined(separator: ", "))], \(rate == 0 ? "no rate limit" : "\(rate)/min"), "
            + "\(uses == 1 ? "single use" : "\(uses) devices"); joins accepted until \(PairingError.time(now + expiresIn)); \(grantEnd)"
            + (f.has("--tools") ? "; tools allowed" : "; no tools (share --tools allows them)")
            + (budget.map { "; budget \($0.tokens) tokens a \($0.period.rawValue)" } ?? "")
            + (f.has("--approve") ? "; joins wait for: homebase grants approve ID" : "")
            + "\nthe friend runs: guest join -   and pastes the invite (homebase run must be running to answer the join)")
        return 0
    }

    /// `N/min` or `N` (per minute); 0 = no limit.
    static func parseRate(_ text: String) throws(UsageError) -> UInt32 {
        let n = text.hasSuffix("/min") ? String(text.dropLast(4)) : text
        guard let v = UInt32(n) else { throw UsageError.invalid("--rate takes N/min, e.g. 20/min (0: no limit)") }
        return v
    }

    /// `--grant-expires`: a lifetime no shorter than the invite's, or `never` (0).
    static func parseGrantLifetime(_ text: String, invite: Int64) throws(UsageError) -> Int64 {
        if text == "never" { return 0 }
        let ms = try parseLifetime(text, flag: "--grant-expires", extra: " or never")
        guard ms >= invite else {
            throw UsageError.invalid("--grant-expires \(text) ends before the invite (--expires): "
                                   + "a friend joining late would get an expired grant; give at least the invite's lifetime")
        }
        return ms
    }

    /// `30m`, `12h`, `7d` (also `s`, `ms`), in milliseconds; at least one second.
    static func parseLifetime(_ text: String, flag: String = "--expires", extra: String = "") throws(UsageError) -> Int64 {
        let bad = UsageError.invalid("\(flag) takes a duration: 30m, 12h, 7d\(extra)")
        let ms: Int64
        if text.hasSuffix("d"), let days = Int64(text.dropLast()), days >= 0, days <= 3650 {
            ms = days * 86_400_000
        } else if let d = Settings.parseDuration(text) {
            ms = d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
        } else {
            throw bad
        }
        guard ms >= 1000 else { throw bad }
        return ms
    }
}
