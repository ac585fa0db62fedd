import Basics
import CommandLineKit
import Foundation
import HomebaseAgent
import Pairing
import Sealing
import Signing
import Wire

/// `homebase grants list | approve ID | revoke ID`. The running agent picks the change up on
/// its next reload tick and mails the grantee the grant or the revoke notice.
enum GrantsCommand {
    static let usage = """
        usage: homebase grants list | usage [--json] | approve ID | revoke ID
          list         grants and joins waiting for approval, with their ids
          usage        per grant and per own device: requests and tokens in/out (as the engine
                       reported them) by day (UTC) and model, and each token budget's use; never
                       prompt text. --json: the same as JSON
          approve ID   grant a join that waits for approval (homebase share --approve)
          revoke ID    revoke a grant (its next request is refused `revoked`, the device is told;
                       its invite is retired: no one else can join with it), or refuse a join
                       that waits for approval
        """

    static func run(_ f: ParsedArguments, _ c: HomebaseCLI.Context) throws -> Int32 {
        _ = try c.files.loadIdentity()
        let store = try c.files.openStore()
        defer { store.close() }
        let sharing = try c.files.openSharing()
        defer { sharing.close() }
        switch (f.positionals.first, f.positionals.count) {
        case ("list", 1):
            try list(store: store, sharing: sharing)
        case ("usage", 1):
            out(try UsageCommand.text(json: f.has("--json"), store: store))
        case ("approve", 2):
            let join = try SharingActions.approve(try grantID(f.positionals[1]), sharing: sharing, store: store, nowMs: nowMs())
            out("approved \(hex(join.grantID.bytes)) for \(join.joiner.signingKey.hex) (\"\(Printable.escape(join.accountName))\")")
        case ("revoke", 2):
            out(try SharingActions.revoke(try grantID(f.positionals[1]), sharing: sharing, store: store))
        default:
            throw UsageError.invalid(usage)
        }
        return 0
    }

    static func grantID(_ text: String) throws -> Bytes16 {
        guard let bytes = Basics.bytes(fromHex: text.trimmingCharacters(in: .whitespaces)), let id = Bytes16(bytes) else {
            throw UsageError.invalid("ID is 32 hex digits, as `homebase grants list` prints it")
        }
        return id
    }

    /// One line per grant or pending join: id, state, device, account name, models, rate, tools, end.
    static func list(store: HostStore, sharing: SharingStore) throws {
        let now = nowMs()
        let joins = Dictionary(try sharing.joins().map { ($0.grantID, $0) }, uniquingKeysWith: { a, _ in a })
        let grants = try store.grants()
        for g in grants {
            let state = g.revoked ? "revoked" : (g.isActive(nowMs: now) ? "active" : "expired")
            let end = g.expiresMs == 0 ? "" : (g.isActive(nowMs: now) ? "  until " : "  at ") + PairingError.time(g.expiresMs)
            // Names come from the joiner (stored before they were checked, perhaps): escaped.
            let account = joins[g.grantID].map { " account \"\(Printable.escape($0.accountName))\"" } ?? ""
            out("\(hex(g.grantID.bytes))  \(state)  \(g.grantee.signingKey.hex) (\(Printable.escape(g.grantee.name)))\(account)  "
                + "[\(g.models.joined(separator: ", "))]  \(g.ratePerMinute == 0 ? "no rate limit" : "\(g.ratePerMinute)/min")"
                + "  \(g.tools ? "tools" : "no tools")" + (g.budget.map { "  budget \($0)" } ?? "") + end)
        }
        let granted = Set(grants.map(\.grantID))
        for j in joins.values.sorted(by: { $0.createdMs < $1.createdMs }) where !granted.contains(j.grantID) {
            out("\(hex(j.grantID.bytes))  \(j.state == .pending ? "pending approval" : j.state.rawValue)  "
                + "\(j.joiner.signingKey.hex) (\(Printable.escape(j.joiner.name))) account \"\(Printable.escape(j.accountName))\"")
        }
        if grants.isEmpty && joins.isEmpty { out("no grants (homebase share makes an invite)") }
    }
}
