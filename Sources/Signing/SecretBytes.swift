import CSodium

/// Fixed-size secret storage: wiped with `sodium_memzero` when the last reference goes,
/// compared in constant time, never printed.
///
/// Immutable after initialization, so it is safe to share between threads.
public final class SecretBytes: @unchecked Sendable, Equatable, CustomStringConvertible {
    private let storage: UnsafeMutableRawBufferPointer

    /// Allocates `count` bytes and lets `fill` write them in place (no intermediate copy).
    /// If `fill` throws, the bytes are wiped and freed before the error propagates.
    public init(count: Int, fill: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        ensureSodium()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        do {
            try fill(buffer)
        } catch {
            SecretBytes.release(buffer)
            throw error
        }
        storage = buffer
    }

    /// Copies `bytes` into secret storage. The caller remains responsible for wiping its copy.
    public convenience init(_ bytes: some Collection<UInt8>) {
        self.init(count: bytes.count) { dst in
            withBytes(bytes) { src in dst.copyMemory(from: src) }
        }
    }

    /// `count` bytes from libsodium's CSPRNG.
    public static func random(count: Int) -> SecretBytes {
        SecretBytes(count: count) { dst in
            if let base = dst.baseAddress { randombytes_buf(base, dst.count) }
        }
    }

    deinit { SecretBytes.release(storage) }

    /// Number of secret bytes.
    public var count: Int { storage.count }

    /// Read access to the secret. Do not let the pointer escape.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(storage))
    }

    /// Constant-time comparison (lengths are not secret and compared first).
    public static func == (lhs: SecretBytes, rhs: SecretBytes) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.count == 0 { return true }
        return sodium_memcmp(lhs.storage.baseAddress!, rhs.storage.baseAddress!, lhs.count) == 0
    }

    /// Never the bytes: secrets must not reach a log.
    public var description: String { "SecretBytes(\(count) bytes)" }

    private static func release(_ buffer: UnsafeMutableRawBufferPointer) {
        if let base = buffer.baseAddress { sodium_memzero(base, buffer.count) }
        buffer.deallocate()
    }
}
