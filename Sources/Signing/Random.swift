import CSodium

/// `count` bytes from libsodium's CSPRNG (`randombytes_buf`): frame ids, nonces, request ids.
/// For bytes that are secrets (and must be wiped) use `SecretBytes.random(count:)` instead.
public func randomBytes(count: Int) -> [UInt8] {
    ensureSodium()
    var out = [UInt8](repeating: 0, count: count)
    out.withUnsafeMutableBytes { raw in
        if let base = raw.baseAddress { randombytes_buf(base, raw.count) }
    }
    return out
}
