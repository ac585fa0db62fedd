import Basics
import CSodium

/// libsodium must be initialized once before use. `sodium_init` is itself idempotent and
/// thread-safe; the lazy static makes the call happen exactly once, on first use.
enum Sodium {
    static let ready: Void = {
        // Failure means no source of randomness: nothing in this module can be safe then.
        precondition(sodium_init() >= 0, "libsodium could not be initialized")
    }()
}

/// Makes sure libsodium is initialized. Every entry point that uses libsodium calls it.
package func ensureSodium() {
    _ = Sodium.ready
}

/// Runs `body` over the bytes of any collection, contiguously, without a copy when possible.
/// The buffer's base address is never nil (C functions get a valid pointer even for no bytes).
package func withBytes<C: Collection<UInt8>, R>(
    _ collection: C, _ body: (UnsafeRawBufferPointer) throws -> R
) rethrows -> R {
    if collection.isEmpty {
        var placeholder: UInt8 = 0
        return try withUnsafeBytes(of: &placeholder) { one in
            try body(UnsafeRawBufferPointer(start: one.baseAddress, count: 0))
        }
    }
    if let result = try collection.withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
        return result
    }
    var copy = Array(collection)
    defer { wipe(&copy) }
    return try copy.withUnsafeBytes(body)
}

/// The typed base address of a buffer obtained from `withBytes` (never nil there).
package func u8(_ raw: UnsafeRawBufferPointer) -> UnsafePointer<UInt8> {
    raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
}

/// The typed base address of a mutable buffer of at least one byte.
package func u8(_ raw: UnsafeMutableRawBufferPointer) -> UnsafeMutablePointer<UInt8> {
    raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
}
