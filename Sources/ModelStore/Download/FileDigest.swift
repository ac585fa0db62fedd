import Basics
import CSodium
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// SHA-256 of a file as it is on disk (libsodium), hex. The hub's tree gives each LFS file's
/// sha256 (`lfs.oid`): a download is renamed into place only when the bytes on disk hash to it.
enum FileDigest {
    /// Read size per `read(2)`.
    static let chunk = 1 << 20

    /// The file's sha256 in lowercase hex.
    /// - Throws: `ModelStoreError.io` when the file cannot be read.
    static func sha256(path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ModelStoreError.io(path: path, detail: String(cString: strerror(errno))) }
        defer { _ = Glibc.close(fd) }
        var state = crypto_hash_sha256_state()
        crypto_hash_sha256_init(&state)
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, chunk) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw ModelStoreError.io(path: path, detail: String(cString: strerror(errno))) }
            if n == 0 { break }
            buffer.withUnsafeBufferPointer { _ = crypto_hash_sha256_update(&state, $0.baseAddress, UInt64(n)) }
        }
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        crypto_hash_sha256_final(&state, &digest)
        return hexString(digest)
    }

    /// A sha256 as the hub writes it: 64 hex digits (anything else is not one, e.g. a git oid).
    static func isSHA256(_ s: String) -> Bool {
        s.utf8.count == 64 && s.allSatisfy(\.isHexDigit)
    }
}
