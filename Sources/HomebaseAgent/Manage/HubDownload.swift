import Basics
import Foundation
import Inference

/// A GGUF from a model hub into the Homebase's models folder: `OWNER/REPO/FILE.gguf` is fetched
/// from `HUB/OWNER/REPO/resolve/main/FILE.gguf` (Hugging Face's layout; tests point `hubURL`
/// at a stand-in) into a temporary file, renamed once whole. The model is then named `FILE`.
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

    func fetch(_ model: String, progress: ManagedRuntime.Progress) async throws(ManagedRuntime.Failure) -> String {
        let pieces = model.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard pieces.count == 3, pieces.allSatisfy(Self.safeName), pieces[2].hasSuffix(".gguf") else {
            throw .init(code: .badRequest, message: "a llama-server pull names OWNER/REPO/FILE.gguf (the file on the hub)")
        }
        let name = String(pieces[2].dropLast(5))
        let final = folder + "/" + pieces[2], temp = folder + "/." + pieces[2] + ".part"
        var hub = hubURL
        while hub.hasSuffix("/") { hub.removeLast() }
        let url = "\(hub)/\(pieces[0])/\(pieces[1])/resolve/main/\(pieces[2])"
        let r: HTTPStreamResponse
        do { r = try await HTTPStreamClient().send(HTTPStreamRequest(url: url, timeouts: timeouts)) } catch {
            throw .init(code: .hostError, message: "the hub at \(hub.prefix(200)) is not reachable")
        }
        guard r.isSuccess else {
            throw .init(code: r.status == 404 ? .modelUnavailable : .hostError,
                        message: "the hub answered HTTP \(r.status) for \(model.prefix(200))")
        }
        let total = UInt64(r.header("Content-Length") ?? "") ?? 0
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: temp, contents: nil), let file = FileHandle(forWritingAtPath: temp) else {
            throw .init(code: .hostError, message: "the models folder \(folder.prefix(200)) is not writable")
        }
        var done: UInt64 = 0
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
            try? FileManager.default.removeItem(atPath: temp)
            throw .init(code: .hostError, message: "the download of \(model.prefix(200)) ended early (\(done) bytes)")
        }
        guard total == 0 || done == total else {
            try? FileManager.default.removeItem(atPath: temp)
            throw .init(code: .hostError, message: "the hub sent \(done) of \(total) bytes of \(model.prefix(200))")
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
}
