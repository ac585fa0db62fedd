import CSodium

/// SHA-256 of `bytes` (the relay keeps admission tokens only as this digest).
public func sha256(_ bytes: [UInt8]) -> [UInt8] {
    ensureSodium()
    var out = [UInt8](repeating: 0, count: 32)
    _ = crypto_hash_sha256(&out, bytes, UInt64(bytes.count))
    return out
}
