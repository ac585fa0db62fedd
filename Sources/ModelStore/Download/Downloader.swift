import Foundation
import Synchronization

/// Fetches files into place: `<file>.part` first, resumed with `Range` from its size, checked
/// (size, ETag), synced and renamed atomically. A complete file is skipped. Offline fails at once.
struct Downloader: Sendable {
    let http: HTTPClient
    /// The hub's token and the only host it may go to (redirects to a CDN never carry it).
    var token: String?
    var tokenHost: String?
    /// Automatic resumes after a cut or a stall, per file, before the error surfaces.
    var maxResumes: Int
    /// Progress is reported at most once per this many bytes (and at every file's end).
    var progressStep: Int64

    /// Downloads every item in order; `progress` sees the whole pull's bytes.
    func run(_ items: [DownloadItem], progress: @escaping @Sendable (DownloadProgress) -> Void) async throws {
        let sizes = items.map(\.expectedSize)
        let total: Int64? = sizes.contains(where: { $0 == nil }) ? nil : sizes.compactMap { $0 }.reduce(0, +)
        var done: Int64 = 0
        for item in items {
            let base = done
            let lastReported = Mutex<Int64>(-1)
            let report: @Sendable (Int64) -> Void = { size in
                let due = lastReported.withLock { last in
                    guard last < 0 || size - last >= progressStep || size < last || size == item.expectedSize else { return false }
                    last = size
                    return true
                }
                if due { progress(DownloadProgress(received: base + size, total: total)) }
            }
            done += try await fetch(item, report: report)
            progress(DownloadProgress(received: done, total: total))
        }
    }

    /// One file; returns its size.
    func fetch(_ item: DownloadItem, report: @escaping @Sendable (Int64) -> Void) async throws -> Int64 {
        let fm = FileManager.default
        if let size = fileSize(item.destination) {
            if item.expectedSize == nil || size == item.expectedSize { return size }
            try? fm.removeItem(atPath: item.destination)  // wrong size: not ours to keep
        }
        let dir = (item.destination as NSString).deletingLastPathComponent
        do { try fm.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        catch { throw ModelStoreError.io(path: dir, detail: "\(error)") }
        let partPath = item.destination + ".part"
        var attempts = 0
        while true {
            let part = try PartFile(path: partPath, expectedETag: item.etag, onWrite: report)
            if let expected = item.expectedSize, part.size > expected { _ = part.truncate(to: 0) }
            if let expected = item.expectedSize, part.size == expected, expected > 0 {
                return try finish(part, item: item, announced: expected)
            }
            var request = HTTPRequest(url: item.url, token: token, tokenHost: tokenHost)
            if part.size > 0 {
                request.headers.append((name: "Range", value: "bytes=\(part.size)-"))
                if let etag = item.etag { request.headers.append((name: "If-Range", value: "\"\(etag)\"")) }
            }
            do {
                let response = try await http.get(request, sink: part)
                if response.status == 416 {  // our part is past the end: start over once
                    _ = part.truncate(to: 0)
                    attempts += 1
                    if attempts > maxResumes { throw ModelStoreError.httpStatus(url: HTTPClient.display(URL(string: item.url)), status: 416) }
                    continue
                }
                guard response.status == 200 || response.status == 206 else {
                    throw ModelStoreError.httpStatus(url: HTTPClient.display(URL(string: response.url)), status: response.status)
                }
                if !part.began && response.status == 200 { _ = part.truncate(to: 0) }  // an empty body
                return try finish(part, item: item, announced: part.announcedTotal)
            } catch let error as ModelStoreError {
                if let failure = part.failure {
                    if case .integrity = failure { try? fm.removeItem(atPath: partPath) }
                    throw failure
                }
                guard case .interrupted = error, attempts < maxResumes else { throw error }
                attempts += 1  // the .part keeps what arrived: the next request resumes from it
            }
        }
    }
}

extension Downloader {
    /// Syncs and closes the part, checks its size and sha256 ON DISK, and renames it into place:
    /// a file without `.part` has passed every check.
    ///
    /// The check reads the closed file, not the count of bytes we wrote: any descriptor number of
    /// ours can be written by code elsewhere in the process that still holds it after closing its
    /// own file (seen: a stopped event loop's late 8-byte eventfd wake-up grew a shard by 8 bytes).
    /// Closed first, so nothing of ours can grow it between the check and the rename.
    func finish(_ part: PartFile, item: DownloadItem, announced: Int64?) throws -> Int64 {
        let syncError = part.sync() ? nil : String(cString: strerror(errno))
        part.close()
        if let syncError { throw ModelStoreError.io(path: part.path, detail: syncError) }
        let expected = item.expectedSize ?? announced
        let onDisk = fileSize(part.path)
        guard let onDisk, onDisk == part.size, expected == nil || onDisk == expected else {
            try? FileManager.default.removeItem(atPath: part.path)
            throw ModelStoreError.integrity(file: (item.destination as NSString).lastPathComponent,
                                            detail: "\(onDisk.map(String.init) ?? "no") bytes on disk, \(part.size) received"
                                                + (expected.map { ", expected \($0)" } ?? ""))
        }
        if let sha256 = item.sha256 {
            let actual = try FileDigest.sha256(path: part.path)
            guard actual == sha256 else {
                try? FileManager.default.removeItem(atPath: part.path)
                throw ModelStoreError.integrity(file: (item.destination as NSString).lastPathComponent,
                                                detail: "its sha256 is \(actual), the hub's is \(sha256); the file was removed, pull again")
            }
        }
        guard rename(part.path, item.destination) == 0 else {
            throw ModelStoreError.io(path: item.destination, detail: String(cString: strerror(errno)))
        }
        return onDisk
    }

    func fileSize(_ path: String) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
    }
}
