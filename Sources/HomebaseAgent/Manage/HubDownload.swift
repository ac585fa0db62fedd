import Basics
import Foundation
import Inference
import Signing

/// A GGUF from a model hub into the Homebase's models folder: `OWNER/REPO/FILE.gguf` is fetched
/// from `HUB/OWNER/REPO/resolve/main/FILE.gguf` (Hugging Face's layout; tests point `hubURL`
/// at a stand-in) into a temporary file, renamed once whole and, where the hub gives the file's
/// sha256 (its tree's `lfs.oid`, else an `X-Linked-Etag` of 64 hex digits), only when the bytes
/// on disk hash to it (then a download that ended early resumes from its partial file). The
/// model is then named `FILE`.
struct HubDownload: Sendable {
    let hubURL: String
    let folder: String
    let timeouts: HTTPTimeouts
    /// Progress at most this often (and once at the end).
    var progressEvery: Duration = .milliseconds(250)

    /// A file name we write: no path separators, no leading dot, printable.
    static func safeName(_ s: String) -> Bool {
        !s.isEmpty && !s.hasPrefix(".") && !s.contains("/") && !s.contains("\\")
            && s.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F }
    }

    /// OWNER, REPO, FILE of a pull's name; nil when it is not one we write.
    static func pieces(_ model: String) -> [String]? {
        let pieces = model.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard pieces.count == 3, pieces.allSatisfy(Self.safeName), pieces[2].hasSuffix(".gguf") else { return nil }
        return pieces
    }

    /// Where the download of `model` is written until whole (kept between pulls to resume).
    func partPath(_ model: String) -> String? { Self.pieces(model).map { folder + "/." + $0[2] + ".part" } }

    func fetch(_ model: String, progress: ManagedRuntime.Progress) async throws(ManagedRuntime.Failure) -> String {
        guard let pieces = Self.pieces(model), let temp = partPath(model) else {
            throw .init(code: .badRequest, message: "a llama-server pull names OWNER/REPO/FILE.gguf (the file on the hub)")
        }
        let name = String(pieces[2].dropLast(5))
        let final = folder + "/" + pieces[2]
        var hub = hubURL
        while hub.hasSuffix("/") { hub.removeLast() }
        let url = "\(hub)/\(pieces[0])/\(pieces[1])/resolve/main/\(pieces[2])"
        var expected = await treeSHA256(hub: hub, owner: pieces[0], repo: pieces[1], file: pieces[2])
        // A partial file left by a download that ended early resumes, only when the tree named the
        // file's sha256: it is the If-Range (the CDN's ETag), and the whole is checked against it.
        var kept = expected == nil ? 0 : ((try? FileManager.default.attributesOfItem(atPath: temp)[.size]) as? NSNumber)?.uint64Value ?? 0
        let range = expected.map { kept == 0 ? [] : [HTTPHeader("Range", "bytes=\(kept)-"), HTTPHeader("If-Range", "\"\($0)\"")] } ?? []
        var (r, linkedEtag) = try await follow(url, hub: hub, headers: range)
        if r.status == 416 {  // the partial file is not a prefix of this one: start over
            kept = 0
            (r, linkedEtag) = try await follow(url, hub: hub)
        }
        guard r.isSuccess else {
            throw .init(code: r.status == 404 ? .modelUnavailable : .hostError,
                        message: "the hub answered HTTP \(r.status) for \(model.prefix(200))")
        }
        let resumed = kept > 0 && r.status == 206
        let length = UInt64(r.header("Content-Length") ?? "") ?? 0
        let total = length == 0 ? 0 : (resumed ? kept : 0) + length
        if expected == nil { expected = linkedEtag }
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        guard resumed || FileManager.default.createFile(atPath: temp, contents: nil), let file = FileHandle(forWritingAtPath: temp) else {
            throw .init(code: .hostError, message: "the models folder \(folder.prefix(200)) is not writable")
        }
        if resumed { _ = try? file.seekToEnd() }
        let resumable = expected != nil
        var done: UInt64 = resumed ? kept : 0
        var last = monotonicNanos()
        let every = UInt64(progressEvery.components.seconds) * 1_000_000_000 + UInt64(progressEvery.components.attoseconds / 1_000_000_000)
        do {
            defer { try? file.close() }
            for try await piece in r.body {
                try file.write(contentsOf: piece)
                done += UInt64(piece.count)
                if monotonicNanos() - last >= every {
                    last = monotonicNanos()
                    await progress(done, total, "downloading")
                }
            }
        } catch {
            if !resumable || Task.isCancelled { try? FileManager.default.removeItem(atPath: temp) }
            throw .init(code: .hostError, message: "the download of \(model.prefix(200)) ended early (\(done) bytes)"
                        + (resumable && !Task.isCancelled ? "; pull again to resume it" : ""))
        }
        // A cancel may end the body as if it were whole (the stream just stops).
        if Task.isCancelled {
            try? FileManager.default.removeItem(atPath: temp)
            throw .init(code: .hostError, message: "the pull of \(model.prefix(200)) was cancelled")
        }
        guard total == 0 || done == total else {
            if !resumable { try? FileManager.default.removeItem(atPath: temp) }
            throw .init(code: .hostError, message: "the hub sent \(done) of \(total) bytes of \(model.prefix(200))"
                        + (resumable ? "; pull again to resume it" : ""))
        }
        if let expected {
            await progress(done, total == 0 ? done : total, "verifying sha256")
            let actual = (try? sha256(filePath: temp)).map(hexString)
            guard actual == expected else {
                try? FileManager.default.removeItem(atPath: temp)
                throw .init(code: .hostError, message: "the download of \(model.prefix(200)) does not match the hub's sha256 "
                            + "(\(expected.prefix(12))…, the file's \(actual?.prefix(12) ?? "unreadable")…): it was removed, pull again")
            }
        }
        await progress(done, total == 0 ? done : total, "downloaded")
        do {
            if FileManager.default.fileExists(atPath: final) { try FileManager.default.removeItem(atPath: final) }
            try FileManager.default.moveItem(atPath: temp, toPath: final)
        } catch {
            throw .init(code: .hostError, message: "could not move the download into the models folder")
        }
        return name
    }

    /// GET `url`, following up to 5 redirects (Hugging Face sends LFS files to its CDN with a
    /// 302 whose `X-Linked-Etag` is the file's sha256: returned when it is one).
    func follow(_ start: String, hub: String, headers: [HTTPHeader] = []) async throws(ManagedRuntime.Failure) -> (HTTPStreamResponse, String?) {
        var url = start, etag: String?
        for _ in 0..<6 {
            let r: HTTPStreamResponse
            do { r = try await HTTPStreamClient().send(HTTPStreamRequest(url: url, headers: headers, timeouts: timeouts)) } catch {
                throw .init(code: .hostError, message: "the hub at \(hub.prefix(200)) is not reachable")
            }
            if let e = r.header("X-Linked-Etag")?.trimmingCharacters(in: CharacterSet(charactersIn: "\" W/")).lowercased(),
               isSHA256Hex(e) { etag = e }
            guard [301, 302, 303, 307, 308].contains(r.status), let location = r.header("Location"), !location.isEmpty else {
                return (r, etag)
            }
            _ = try? await r.collect(limit: 1 << 16)
            if location.hasPrefix("http://") || location.hasPrefix("https://") {
                url = location
            } else if location.hasPrefix("/"), let scheme = url.range(of: "://") {
                url = String(url[..<(url[scheme.upperBound...].firstIndex(of: "/") ?? url.endIndex)]) + location
            } else {
                throw .init(code: .hostError, message: "the hub redirected to \(location.prefix(200)), which is not a URL")
            }
        }
        throw .init(code: .hostError, message: "the hub redirected more than 5 times")
    }

    /// The file's sha256 from the hub's tree (`GET HUB/api/models/OWNER/REPO/tree/main`, Hugging
    /// Face's: a list of entries with `path` and, for LFS files, `lfs.oid`); nil when the hub has none.
    func treeSHA256(hub: String, owner: String, repo: String, file: String) async -> String? {
        guard let r = try? await HTTPStreamClient().send(HTTPStreamRequest(url: "\(hub)/api/models/\(owner)/\(repo)/tree/main", timeouts: timeouts)),
              r.isSuccess, let body = try? await r.collect(limit: 4 << 20),
              let entries = try? JSONSerialization.jsonObject(with: Data(body)) as? [[String: Any]] else { return nil }
        let oid = (entries.first { $0["path"] as? String == file }?["lfs"] as? [String: Any])?["oid"] as? String
        return oid.map { $0.lowercased() }.flatMap { isSHA256Hex($0) ? $0 : nil }
    }
}
