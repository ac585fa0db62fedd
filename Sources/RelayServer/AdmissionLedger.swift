import Basics
import Glibc
import Signing
import RelayWire

/// What allowed accounts told this relay with `account-order`s: revoked devices and admission
/// tokens (by SHA-256) with the devices bound to them. Kept in memory and appended to a log in
/// the data directory, replayed (and re-verified by the caller) at start, so a restart forgets
/// no revocation and reopens no single-use token. Loop thread only.
final class AdmissionLedger {
    struct Revocation { var rosterVersion: UInt64; var notAfter: UInt64 }
    struct TokenGrant { var account: Bytes32; var notAfter: UInt64; var uses: UInt16; var devices: Set<Bytes32> }
    struct DevicePair: Hashable { let account: Bytes32; let device: Bytes32 }

    private(set) var revoked: [DevicePair: Revocation] = [:]
    private(set) var tokens: [Bytes32: TokenGrant] = [:]
    private let path: String?

    /// `path` nil keeps everything in memory (tests).
    init(path: String?) { self.path = path }

    /// Whether `device`'s proof of `rosterVersion` by `account` was revoked.
    func isRevoked(account: Bytes32, device: Bytes32, rosterVersion: UInt64) -> Bool {
        guard let r = revoked[DevicePair(account: account, device: device)] else { return false }
        return rosterVersion <= r.rosterVersion
    }

    /// Applies an order whose signature and account were checked; false when it changed nothing.
    @discardableResult
    func apply(_ o: RelayFrame.AccountOrder, persist: Bool = true, maxTokens: Int) -> Bool {
        switch o.kind {
        case RelayFrame.AccountOrder.revokeDevice:
            let k = DevicePair(account: o.accountKey, device: o.subject)
            if let old = revoked[k], old.rosterVersion >= o.rosterVersion, old.notAfter >= o.notAfterSeconds { return false }
            revoked[k] = Revocation(rosterVersion: max(o.rosterVersion, revoked[k]?.rosterVersion ?? 0),
                                    notAfter: max(o.notAfterSeconds, revoked[k]?.notAfter ?? 0))
        case RelayFrame.AccountOrder.admitToken:
            if var g = tokens[o.subject] {
                guard g.account == o.accountKey else { return false } // another account's token: never taken over
                if g.notAfter == o.notAfterSeconds && g.uses == o.uses { return false }
                g.notAfter = o.notAfterSeconds; g.uses = o.uses
                tokens[o.subject] = g
            } else {
                guard tokens.values.count(where: { $0.account == o.accountKey }) < maxTokens else { return false }
                tokens[o.subject] = TokenGrant(account: o.accountKey, notAfter: o.notAfterSeconds, uses: o.uses, devices: [])
            }
        default:
            return false // a kind this version does not know: ignored
        }
        if persist { append("order " + hexString((try? RelayFrame.accountOrder(o).encode()) ?? [])) }
        return true
    }

    enum TokenVerdict: Equatable { case admit(account: Bytes32), unknown, expired, used }

    /// Admits `device` by the token whose SHA-256 is `hash`, binding it on first use.
    func admit(tokenHash hash: Bytes32, device: Bytes32, nowSeconds: UInt64) -> TokenVerdict {
        guard var g = tokens[hash] else { return .unknown }
        guard nowSeconds <= g.notAfter else { return .expired }
        if g.devices.contains(device) { return .admit(account: g.account) }
        guard g.uses == 0 || g.devices.count < Int(g.uses) else { return .used }
        g.devices.insert(device)
        tokens[hash] = g
        append("bind \(hash.hex) \(device.hex)")
        return .admit(account: g.account)
    }

    /// Replays the log: `verify` re-checks each order (the allowed accounts may have changed).
    /// Expired entries are dropped from memory (the log keeps them: it only grows by changes).
    func load(nowSeconds: UInt64, maxTokens: Int, verify: (RelayFrame.AccountOrder) -> Bool) {
        guard let path, let text = try? readTextFile(path) else { return }
        var binds: [(Bytes32, Bytes32)] = []
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.count == 2, words[0] == "order", let bytes = Basics.bytes(fromHex: words[1]),
               case .accountOrder(let o)? = try? RelayFrame.decode(bytes), verify(o) {
                apply(o, persist: false, maxTokens: maxTokens)
            } else if words.count == 3, words[0] == "bind", let h = Basics.bytes(fromHex: words[1]).flatMap(Bytes32.init),
                      let d = Basics.bytes(fromHex: words[2]).flatMap(Bytes32.init) {
                binds.append((h, d))
            }
        }
        for (h, d) in binds { tokens[h]?.devices.insert(d) }
        revoked = revoked.filter { $0.value.notAfter >= nowSeconds }
        tokens = tokens.filter { $0.value.notAfter >= nowSeconds }
    }

    private func append(_ line: String) {
        guard let path else { return }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}
