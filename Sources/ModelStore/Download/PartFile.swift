import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The `<file>.part` a download writes into, as the transfer thread sees it.
///
/// `begin` decides per response: 206 whose `Content-Range` starts at our size appends; 200
/// restarts from byte 0 (the server ignored the range, or the file changed: `If-Range`);
/// anything else is refused.
final class PartFile: BodySink, @unchecked Sendable {
    let path: String
    /// -1 once closed: `close()` and `deinit` never close a number twice (it may be reused by then).
    private(set) var fd: Int32
    let expectedETag: String?
    /// Bytes in the file now.
    private(set) var size: Int64
    /// The whole file's size as the response announced it.
    private(set) var announcedTotal: Int64?
    private(set) var began = false
    private(set) var failure: ModelStoreError?
    private let onWrite: (Int64) -> Void

    init(path: String, expectedETag: String?, onWrite: @escaping (Int64) -> Void) throws {
        self.path = path
        self.expectedETag = expectedETag
        self.onWrite = onWrite
        fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ModelStoreError.io(path: path, detail: String(cString: strerror(errno))) }
        size = Int64(lseek(fd, 0, SEEK_END))
    }

    deinit { close() }

    /// Closes the descriptor (once). `finish` closes before it checks: after that, no write through
    /// a descriptor of ours can change the file.
    func close() {
        if fd >= 0 { _ = Glibc.close(fd) }
        fd = -1
    }

    func begin(status: Int, headers: [String: String]) -> Bool {
        began = true
        let etag = (headers["x-linked-etag"] ?? headers["etag"]).map(PartFile.bareETag)
        if let expectedETag, let etag, etag != PartFile.bareETag(expectedETag) {
            failure = .integrity(file: path, detail: "ETag \(etag) differs from the hub's \(expectedETag)")
            return false
        }
        switch status {
        case 206:
            guard let range = headers["content-range"], let (start, total) = PartFile.contentRange(range), start == size else {
                failure = .integrity(file: path, detail: "the server resumed at another offset")
                return false
            }
            announcedTotal = total
        case 200:
            guard truncate(to: 0) else { return false }
            announcedTotal = headers["content-length"].flatMap { Int64($0) }
        default:
            return false
        }
        return true
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                failure = .io(path: path, detail: String(cString: strerror(errno)))
                return false
            }
            offset += n
        }
        size += Int64(bytes.count)
        onWrite(size)
        return true
    }

    func truncate(to length: Int64) -> Bool {
        guard ftruncate(fd, off_t(length)) == 0, lseek(fd, off_t(length), SEEK_SET) >= 0 else {
            failure = .io(path: path, detail: String(cString: strerror(errno)))
            return false
        }
        size = length
        onWrite(size)
        return true
    }

    /// Flushes to disk: the rename that follows must never expose a file whose bytes are not there.
    func sync() -> Bool { fsync(fd) == 0 }
}

/// Header values a resume depends on.
extension PartFile {
    /// `bytes 100-199/1000` → (100, 1000); total nil for `*`.
    static func contentRange(_ value: String) -> (Int64, Int64?)? {
        let v = value.trimmingCharacters(in: .whitespaces)
        guard v.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = v.dropFirst(6).split(separator: "/")
        guard spec.count == 2, let dash = spec[0].firstIndex(of: "-"), let start = Int64(spec[0][..<dash]) else { return nil }
        return (start, Int64(spec[1]))
    }

    /// `W/"abc"` and `"abc"` → `abc`.
    static func bareETag(_ raw: String) -> String {
        var s = raw.trimmingCharacters(in: .whitespaces)
        if s.hasPrefix("W/") { s = String(s.dropFirst(2)) }
        return s.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }
}
