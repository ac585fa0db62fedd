import Signing

/// How keys are shown: the conventional prefix kept, the rest hidden but the last four
/// characters (`sk-ant-•••••wxyz`, `sk-proj-•••••wxyz`, `sk-•••••wxyz`). A key too short to
/// spare four characters after its prefix and eight hidden ones shows none of them.
public enum KeyMask {
    /// Longest first: the first that matches is kept.
    static let prefixes = ["sk-ant-", "sk-proj-", "sk-"]
    static let dots = "•••••"

    public static func masked(_ key: SecretBytes) -> String {
        key.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let prefix = prefixes.first { p in bytes.count >= p.utf8.count && bytes.starts(with: p.utf8) } ?? ""
            let p = prefix.utf8.count
            guard bytes.count >= p + 12 else { return prefix + dots }
            return prefix + dots + String(decoding: bytes[(bytes.count - 4)...], as: UTF8.self)
        }
    }
}
