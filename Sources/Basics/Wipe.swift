#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Overwrites an array's bytes with zeros in a way the compiler may not drop (`explicit_bzero`),
/// for plaintext and secrets we are done with. Best effort: Swift may have made copies earlier.
package func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { raw in
        if let base = raw.baseAddress, raw.count > 0 { explicit_bzero(base, raw.count) }
    }
}
