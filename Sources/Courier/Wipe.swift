import CSodium

/// Zeroes plaintext we are done with (encoded messages carry prompts and answers).
func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { p in
        if let base = p.baseAddress, p.count > 0 { sodium_memzero(base, p.count) }
    }
}
