import Glibc
import Routing
import Signing

/// API keys as files of `<data-dir>/keys/`: `openai`, `anthropic`, mode 0600, read at every
/// call. A file others may read counts as absent (and is never read). These are the slots
/// `guest keys` (CloudKeys' `CloudKeyStore`) mirrors the first key of each ring into.
public struct FileKeyRing: KeyRing {
    public let directory: String
    /// Longest key file read (API keys are ~200 bytes).
    public static let maxKeyBytes = 4096

    public init(directory: String) { self.directory = directory }

    public static func fileName(_ cloud: Cloud) -> String {
        cloud == .openAI ? "openai" : "anthropic"
    }

    public func hasKey(_ cloud: Cloud) throws -> Bool {
        var info = stat()
        guard stat(path(cloud), &info) == 0 else { return false }
        return info.st_mode & S_IFMT == S_IFREG && info.st_mode & 0o077 == 0 && info.st_size > 0
    }

    /// The key without surrounding whitespace, in wiped-on-release memory.
    public func key(_ cloud: Cloud) throws -> SecretBytes? {
        guard try hasKey(cloud) else { return nil }
        let fd = open(path(cloud), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var got = 0
        let raw = SecretBytes(count: Self.maxKeyBytes) { buf in got = read(fd, buf.baseAddress!, buf.count) }
        guard got > 0, got < Self.maxKeyBytes else { return nil }
        return raw.withUnsafeBytes { buf -> SecretBytes? in
            let bytes = buf.prefix(got)
            let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }
            guard let first = bytes.firstIndex(where: { !isSpace($0) }),
                  let last = bytes.lastIndex(where: { !isSpace($0) }) else { return nil }
            return SecretBytes(count: last - first + 1) { dst in
                dst.copyMemory(from: UnsafeRawBufferPointer(rebasing: buf[first...last]))
            }
        }
    }

    private func path(_ cloud: Cloud) -> String { directory + "/" + Self.fileName(cloud) }
}
