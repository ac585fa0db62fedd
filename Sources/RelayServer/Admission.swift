import Signing
import Wire

/// The operator's admission policy: open, an allowlist of device or account keys, or tokens.
/// The files are read at start and on `reload()` (SIGHUP); a reload that fails keeps the old
/// lists, so a typo never locks everyone out. Loop thread only.
final class Admission {
    enum Decision: Equatable {
        case admit
        case refuse(AuthRefusalReason, String)
    }

    let mode: RelayConfig.AdmissionMode
    private let allowlistPath: String?
    private let tokenPath: String?
    private(set) var keys: Set<Bytes32> = []
    /// Held as SecretBytes: wiped when dropped, compared in constant time.
    private var tokens: [SecretBytes] = []

    init(config: RelayConfig) throws(RelayError) {
        mode = config.admission
        allowlistPath = config.allowlistFile
        tokenPath = config.tokenFile
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

    /// `accountVerified`: the auth carried an account proof that verifies (checked by the caller).
    func check(_ auth: RelayFrame.Auth, accountVerified: Bool) -> Decision {
        switch mode {
        case .open:
            return .admit
        case .allowlist:
            if keys.contains(auth.deviceKey) { return .admit }
            if accountVerified, let a = auth.account, keys.contains(a.accountKey) { return .admit }
            return .refuse(.notAdmitted, "this relay admits only allowlisted device or account keys")
        case .token:
            guard let presented = auth.admissionToken else {
                return .refuse(.badToken, "this relay admits only devices presenting an admission token")
            }
            let candidate = SecretBytes(presented)
            // Every token is compared (no early exit): timing tells nothing about which matched.
            var found = false
            for t in tokens where t == candidate { found = true }
            return found ? .admit : .refuse(.badToken, "the admission token is not one this relay accepts")
        }
    }

    static func readKeys(_ path: String) throws(RelayError) -> Set<Bytes32> {
        var out: Set<Bytes32> = []
        for (n, line) in try lines(path, key: "allowlist-file") {
            let word = line.prefix { $0 != "#" }.trimmed
            if word.isEmpty { continue }
            guard let pk = PublicKey(hex: String(word)), let key = Bytes32(pk.bytes) else {
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
