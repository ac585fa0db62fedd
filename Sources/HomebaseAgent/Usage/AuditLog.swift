import Foundation
import Synchronization

/// The Homebase's audit log (#21): one JSON line per request, `audit.jsonl` in the data
/// directory, rotated to `audit.jsonl.1` when it would pass `maxBytes` (so at most about twice
/// that on disk). Time, requester, model, tokens, outcome, duration: never prompt or answer text.
/// Off for the account's own devices by default, on for grantees (`AuditSettings`).
final class AuditLog: Sendable {
    struct Entry: Codable, Equatable {
        /// Unix ms when the request arrived.
        var time: Int64
        /// `grant:<id>` or `device:<key>` (hex).
        var requester: String
        /// The requesting device's key (hex), for both kinds.
        var device: String
        var model: String
        var tokensIn: Int64
        var tokensOut: Int64
        /// `done`, or the error code / ending (`busy`, `revoked`, `requester-gone`, ...).
        var outcome: String
        var durationMs: Int64
        /// The runtime that answered (device-local; this file never leaves the machine).
        var runtime: String?
    }

    let path: String
    let maxBytes: Int
    private let lock = Mutex<Void>(())

    init(path: String, maxBytes: Int) {
        self.path = path
        self.maxBytes = max(1024, maxBytes)
    }

    /// Appends one line (0600), rotating first when the file would pass the cap. Failures are
    /// dropped: the audit log never fails a request.
    func write(_ e: Entry) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(e) else { return }
        line.append(0x0A)
        lock.withLock { _ in
            let fm = FileManager.default
            let size = (try? fm.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            if size > 0 && size + line.count > maxBytes {
                _ = try? fm.removeItem(atPath: path + ".1")
                _ = try? fm.moveItem(atPath: path, toPath: path + ".1")
            }
            if !fm.fileExists(atPath: path) {
                _ = fm.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
            }
            guard let h = FileHandle(forWritingAtPath: path) else { return }
            defer { try? h.close() }
            _ = try? h.seekToEnd()
            try? h.write(contentsOf: line)
        }
    }
}

/// Who is audited, and the file's cap. `homebase run --audit-grants on|off --audit-own on|off
/// --audit-max-bytes N`.
public struct AuditSettings: Sendable, Equatable {
    public var grants = true
    public var own = false
    /// The live file's cap before it rotates (one older file is kept). Default 10 MiB.
    public var maxBytes = 10 << 20

    public init() {}
}
