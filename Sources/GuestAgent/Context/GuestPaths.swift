import Basics
import Foundation
import Glibc
import Storage
import Wire
import OnDeviceEngine

/// The files of a guest's data directory (`--data-dir`, default `$XDG_DATA_HOME/homebase/guest`).
///
///     identity/        signing.key, hpke.key (0600), device.record      (guest init)
///     account.key      the trusted account key, hex                     (guest init --account)
///     keyring/         openai, anthropic (0600): the ordered key rings  (guest keys)
///     keys/            openai, anthropic (0600): each ring's first key  (read per request)
///     runtime.json     the verified local runtime                       (guest runtime add)
///     routing.sqlite   settings, own adverts, joined Homebases
///     replay.sqlite3   replay state of every linked command (0600)
///     models.sqlite, models/   the model store
///     guest.log        fallbacks and engine events (never prompts); llama-server.log
public struct GuestPaths: Sendable, Equatable {
    public let dataDirectory: String

    public init(dataDirectory: String) { self.dataDirectory = dataDirectory }

    /// `$XDG_DATA_HOME/homebase/guest`, `XDG_DATA_HOME` defaulting to `~/.local/share`.
    public static func defaultDataDirectory(environment: [String: String]) -> String {
        XDGBase.dataHome(environment: environment) + "/homebase/guest"
    }

    public var identity: String { dataDirectory + "/identity" }
    public var accountKey: String { dataDirectory + "/account.key" }
    public var keys: String { dataDirectory + "/keys" }
    public var runtime: String { dataDirectory + "/runtime.json" }
    public var routingStore: String { dataDirectory + "/routing.sqlite" }
    public var replayStore: String { dataDirectory + "/replay.sqlite3" }
    public var log: String { dataDirectory + "/guest.log" }
    /// Homebases skipped for a while (`CooldownFile`).
    public var cooldowns: String { dataDirectory + "/cooldowns.json" }
    /// Hosts that said they went to sleep (`AwayFile`).
    public var away: String { dataDirectory + "/away.json" }
    public var engineLog: String { dataDirectory + "/llama-server.log" }
    /// The running on-device engine, for `guest status` in another process (EngineFile.swift).
    public var engineState: String { dataDirectory + "/engine.json" }
    public var catalogCache: String { dataDirectory + "/cache" }

    /// Creates the directory (0700, parents as needed), or tightens one that group or others
    /// may enter to 0700: its stores hold pairing secrets and conversation replicas.
    public func create() throws(GuestError) {
        do { try PrivateFiles.makeDirectory(dataDirectory) } catch {
            throw .dataDirectory(path: dataDirectory, detail: "cannot be created")
        }
    }
}

/// Appends one line per event to `guest.log`: fallbacks, engine crashes. Never a prompt, an
/// answer or a key. Best effort: a log that cannot be written does not stop an answer.
public struct EventLog: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    public func write(_ line: String) {
        let stamp = ISO8601DateFormatter().string(from: Date())
        // Escaped: names from other devices must not forge lines or drive a terminal (`Printable`).
        let bytes = Array("\(stamp) \(Printable.escape(line))\n".utf8)
        // O_APPEND: several guest processes (serve, a chat, a background download) write this
        // file at once; a seek-then-write would let one overwrite another's line.
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    }

    /// The last line containing `word` (for `status`: the last fallback).
    public func lastLine(containing word: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").last { $0.contains(word) }.map(String.init)
    }
}
