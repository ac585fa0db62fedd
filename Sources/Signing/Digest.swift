import CSodium
import Glibc

/// SHA-256 of `bytes` (the relay keeps admission tokens only as this digest).
public func sha256(_ bytes: [UInt8]) -> [UInt8] {
    ensureSodium()
    var out = [UInt8](repeating: 0, count: 32)
    _ = crypto_hash_sha256(&out, bytes, UInt64(bytes.count))
    return out
}

/// SHA-256 of a file as it is on disk, read 1 MiB at a time. A download is checked against the
/// hub's sha256 from the bytes on disk, not from what was written (the guest's model store and
/// the Homebase's pulls share this).
/// - Throws: `SigningError.io` when the file cannot be opened or read.
public func sha256(filePath path: String) throws(SigningError) -> [UInt8] {
    ensureSodium()
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw .io(operation: "open", path: path, errno: errno) }
    defer { _ = close(fd) }
    var state = crypto_hash_sha256_state()
    crypto_hash_sha256_init(&state)
    let chunk = 1 << 20
    var buffer = [UInt8](repeating: 0, count: chunk)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, chunk) }
        if n < 0 && errno == EINTR { continue }
        guard n >= 0 else { throw .io(operation: "read", path: path, errno: errno) }
        if n == 0 { break }
        buffer.withUnsafeBufferPointer { _ = crypto_hash_sha256_update(&state, $0.baseAddress, UInt64(n)) }
    }
    var digest = [UInt8](repeating: 0, count: 32)
    crypto_hash_sha256_final(&state, &digest)
    return digest
}

/// A sha256 as a hub writes it: 64 hex digits (anything else is not one, e.g. a git oid).
public func isSHA256Hex(_ s: String) -> Bool {
    s.utf8.count == 64 && s.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0 | 0x20) }
}
