import Foundation
import Glibc

/// `DATA-DIR/serve.json`: a running `guest serve` announces itself, so the other guest commands
/// of the same data directory ask it instead of opening relay links of their own (the relay keeps
/// one connection per device key: a second link would replace serve's).
///
///     {"pid": 4242, "host": "127.0.0.1", "port": 11435, "started": "2026-12-01T16:00:00Z"}
///
/// plus `tokenFile` when serve requires the token kept in that file (`--token-file`): the file's
/// path, never the token.
///
/// Written atomically (a temporary file renamed over it) once serve listens, removed when it
/// exits; a file whose pid is dead, or is no `guest serve` any more, is ignored.
public struct ServeFile: Sendable, Equatable, Codable {
    public var pid: Int32
    public var host: String
    public var port: Int
    public var started: String
    /// Serve's `--token-file`, read by `guest chat` for its bearer token.
    public var tokenFile: String?

    public init(pid: Int32 = getpid(), host: String, port: Int, started: Date = Date()) {
        self.pid = pid; self.host = host; self.port = port
        self.started = ISO8601DateFormatter().string(from: started)
    }

    public static func path(_ paths: GuestPaths) -> String { paths.dataDirectory + "/serve.json" }

    /// Where a local client reaches it: a wildcard listen address is reached on loopback.
    public var baseURL: String {
        let h = ["0.0.0.0", "::", ""].contains(host) ? "127.0.0.1" : host
        return "http://\(h.contains(":") ? "[\(h)]" : h):\(port)"
    }

    /// Writes the file (0600) through a temporary file and a rename: readers never see half of it.
    public func write(_ paths: GuestPaths) throws {
        let target = Self.path(paths), temporary = target + ".\(getpid()).tmp"
        let data = try JSONEncoder().encode(self)
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw GuestError.badFile(path: temporary, detail: "cannot be written")
        }
        guard rename(temporary, target) == 0 else {
            unlink(temporary)
            throw GuestError.badFile(path: target, detail: "cannot be replaced (errno \(errno))")
        }
    }

    /// The file as written, nil when absent or malformed.
    public static func read(_ paths: GuestPaths) -> ServeFile? {
        guard let data = FileManager.default.contents(atPath: path(paths)) else { return nil }
        return try? JSONDecoder().decode(ServeFile.self, from: data)
    }

    /// The running serve of this data directory, nil when none. `why` hears a stale file.
    public static func live(_ paths: GuestPaths, except me: Int32 = getpid(), why: (String) -> Void = { _ in }) -> ServeFile? {
        guard let file = read(paths), file.pid != me else { return nil }
        guard file.isRunningServe else {
            why("serve.json names pid \(file.pid), which is not a running guest serve: ignored")
            return nil
        }
        return file
    }

    /// Its pid is alive and is a `guest serve` (a pid reused by another program is not).
    public var isRunningServe: Bool {
        guard pid > 0, kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let raw = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        let words = raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        return words.first.map { $0.hasSuffix("guest") } == true && words.contains("serve")
    }

    /// Removes the file when it is still this process's (another serve may have replaced it).
    public static func remove(_ paths: GuestPaths, pid: Int32 = getpid()) {
        guard read(paths)?.pid == pid else { return }
        unlink(path(paths))
    }
}

extension GuestStatus {
    /// The status a command beside a running serve gives without linking: the relay's link is
    /// serve's (state `serve`); what it received is read from the stores serve writes.
    public func heldByServe(_ serve: ServeFile) -> GuestStatus {
        var s = self
        s.relay.linkState = "serve"
        s.relay.link = "held by guest serve (pid \(serve.pid), \(serve.baseURL)); not opened by this command"
        return s
    }
}
