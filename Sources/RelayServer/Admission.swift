import Signing
import RelayWire

/// The operator's admission policy: open, an allowlist of device or account keys, or tokens.
/// The files are read at start and on `reload()` (SIGHUP); a reload that fails keeps the old
/// lists, so a typo never locks everyone out. Loop thread only.
final class Admission {
    enum Decision: Equatable {
        /// `account`: the allowed account that vouched (its revocations close this connection).
        case admit(account: Bytes32?)
        case refuse(AuthRefusalReason, String)
    }

    let mode: RelayConfig.AdmissionMode
    private let allowlistPath: String?
    private let tokenPath: String?
    private let configAccounts: Set<Bytes32>
    private let proofMaxLifetimeSeconds: UInt64
    let maxTokensPerAccount: Int
    private(set) var keys: Set<Bytes32> = []
    /// Held as SecretBytes: wiped when dropped, compared in constant time.
    private var tokens: [SecretBytes] = []
    let ledger: AdmissionLedger

    init(config: RelayConfig, ledgerPath: String? = nil) throws(RelayError) {
        mode = config.admission
        allowlistPath = config.allowlistFile
        tokenPath = config.tokenFile
        configAccounts = Set(config.allowAccounts)
        proofMaxLifetimeSeconds = UInt64(config.proofMaxLifetime.milliseconds / 1000)
        maxTokensPerAccount = config.maxTokensPerAccount
        ledger = AdmissionLedger(path: ledgerPath)
        try reload()
    }

    var tokenCount: Int { tokens.count }

    /// Re-reads the configured files; on error nothing changes.
    func reload() throws(RelayError) {
        let newKeys = try allowlistPath.map { p throws(RelayError) in try Self.readKeys(p) } ?? []
        let newTokens = try tokenPath.map { p throws(RelayError) in try Self.readTokens(p) } ?? []
        keys = newKeys
        tokens = newTokens
    }

    /// Accounts whose device proofs and orders count: `allow-accounts` and the allowlist file's keys.
    func isAllowedAccount(_ k: Bytes32) -> Bool { configAccounts.contains(k) || keys.contains(k) }

    /// `accountVerified`: the v1 account proof of `auth` verifies; `proof`: a `device-proof`
    /// whose signature verified over this relay's origin (both checked by the caller).
    func check(_ auth: RelayFrame.Auth, accountVerified: Bool, proof: RelayFrame.DeviceProof?,
               nowSeconds: UInt64) -> Decision {
        switch mode {
        case .open:
            return .admit(account: nil)
        case .allowlist:
            if keys.contains(auth.deviceKey) { return .admit(account: nil) }
            // The v1 proof binds no relay and never expires: honoured only for allowlist-file keys.
            if accountVerified, let a = auth.account, keys.contains(a.accountKey) { return .admit(account: a.accountKey) }
            if let p = proof, isAllowedAccount(p.accountKey) {
                if let refusal = proofRefusal(p, device: auth.deviceKey, nowSeconds: nowSeconds) { return refusal }
                return .admit(account: p.accountKey)
            }
            if let t = auth.admissionToken {
                switch ledger.admit(tokenHash: Bytes32(unchecked: sha256(t)), device: auth.deviceKey, nowSeconds: nowSeconds) {
                case .admit(let account):
                    if ledger.isRevoked(account: account, device: auth.deviceKey, rosterVersion: .max) {
                        return .refuse(.notAdmitted, "the account that admitted this device revoked it")
                    }
                    return .admit(account: account)
                case .expired: return .refuse(.badToken, "the admission token expired")
                case .used: return .refuse(.badToken, "the admission token was already used by another device")
                case .unknown: if tokenPath != nil { return fileToken(auth) }
                }
            }
            return .refuse(.notAdmitted, "this relay admits only devices of its allowed accounts (a device proof or an admission token)")
        case .token:
            return fileToken(auth)
        }
    }

    private func proofRefusal(_ p: RelayFrame.DeviceProof, device: Bytes32, nowSeconds: UInt64) -> Decision? {
        if p.notAfterSeconds < nowSeconds { return .refuse(.badAccountProof, "the device proof expired: pair again or let the Homebase renew it") }
        if p.notAfterSeconds > nowSeconds + proofMaxLifetimeSeconds {
            return .refuse(.badAccountProof, "the device proof is valid for longer than this relay accepts (\(proofMaxLifetimeSeconds / 86_400) days)")
        }
        if ledger.isRevoked(account: p.accountKey, device: device, rosterVersion: p.rosterVersion) {
            return .refuse(.notAdmitted, "this device was removed from its account")
        }
        return nil
    }

    private func fileToken(_ auth: RelayFrame.Auth) -> Decision {
        guard let presented = auth.admissionToken else {
            return .refuse(.badToken, "this relay admits only devices presenting an admission token")
        }
        let candidate = SecretBytes(presented)
        // Every token is compared (no early exit): timing tells nothing about which matched.
        var found = false
        for t in tokens where t == candidate { found = true }
        return found ? .admit(account: nil) : .refuse(.badToken, "the admission token is not one this relay accepts")
    }

    static func readKeys(_ path: String) throws(RelayError) -> Set<Bytes32> {
        var out: Set<Bytes32> = []
        for (n, line) in try lines(path, key: "allowlist-file") {
            let word = line.prefix { $0 != "#" }.trimmed
            if word.isEmpty { continue }
            guard let key = PublicKey(hex: String(word)) else {
                throw .badFileLine(path: path, line: n, reason: "expected a key as 64 hex digits")
            }
            out.insert(key)
        }
        return out
    }

    static func readTokens(_ path: String) throws(RelayError) -> [SecretBytes] {
        var out: [SecretBytes] = []
        for (n, line) in try lines(path, key: "token-file") {
            let token = line.trimmed
            if token.isEmpty || token.hasPrefix("#") { continue }
            guard token.utf8.count <= Limits.maxAdmissionToken else {
                throw .badFileLine(path: path, line: n, reason: "a token is at most \(Limits.maxAdmissionToken) bytes")
            }
            out.append(SecretBytes(Array(token.utf8)))
        }
        return out
    }

    private static func lines(_ path: String, key: String) throws(RelayError) -> [(Int, Substring)] {
        do {
            let text = try readTextFile(path)
            return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { ($0 + 1, $1) }
        } catch {
            throw .unreadableFile(key: key, path: path, reason: error.reason)
        }
    }
}
