import Basics
import Glibc

/// Where a cloud provider gets its API key: read again for every request, so a key rotated or
/// reordered in the key ring takes effect on the next call, even mid-conversation.
public struct APIKeySource: Sendable {
    private let read: @Sendable () throws -> String

    /// `read` returns the key or throws (an `InferenceError` is passed through as it is).
    public init(_ read: @escaping @Sendable () throws -> String) { self.read = read }

    /// A key fixed at construction (tests, a factory handed the key by the router).
    public static func fixed(_ key: String) -> APIKeySource { APIKeySource { key } }

    /// The raw key in a file of mode 0600 (`<data-dir>/keys/openai`), trailing newline ignored.
    /// A missing file, an empty one or one that group or others may read is no key at all.
    public static func file(_ path: String) -> APIKeySource {
        APIKeySource { try KeySlotFile.read(path) }
    }

    /// The current key. Throws `InferenceError.unreachable` when there is none: without its key
    /// the cloud cannot be reached, and the caller falls back.
    public func key() throws -> String {
        do {
            let k = try read()
            guard !k.isEmpty else { throw InferenceError.unreachable("no API key on file") }
            return k
        } catch let e as InferenceError {
            throw e
        } catch {
            throw InferenceError.unreachable("the API key could not be read")
        }
    }
}

/// Reads a key slot: a regular file, mode 0600 (nothing for group or others), at most 4 KiB.
/// Messages name the file, never its content.
enum KeySlotFile {
    static let maxBytes = 4096

    static func read(_ path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw InferenceError.unreachable("no API key on file (\(path))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw InferenceError.unreachable("the key slot \(path) is not a regular file")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw InferenceError.unreachable("the key slot \(path) is readable by others: chmod 600 it")
        }
        var buf = [UInt8](repeating: 0, count: maxBytes + 1)
        let got = buf.withUnsafeMutableBytes { readFully(fd, into: $0) }.count  // a failed read ends it
        defer { wipe(&buf) }
        guard got <= maxBytes else { throw InferenceError.unreachable("the key slot \(path) is too large") }
        var end = got
        while end > 0, buf[end - 1] == 0x0A || buf[end - 1] == 0x0D || buf[end - 1] == 0x20 { end -= 1 }
        return String(decoding: buf[0..<end], as: UTF8.self)
    }
}
