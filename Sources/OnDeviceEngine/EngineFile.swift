import Foundation
import Glibc

/// `DATA-DIR/engine.json`: the on-device engine this data directory's guest is running, so that
/// `guest status` (another process) can say whether it is warm.
///
///     {"pid": 4242, "model": "builtin", "url": "http://127.0.0.1:40123", "warm": true}
///
/// `warm`: started by the warm floor rather than by a request. Written when a server becomes
/// healthy, removed when the guest stops it; a file whose pid is dead (a crash, a killed guest)
/// reads as no engine.
public enum EngineFile {
    public struct State: Sendable, Equatable, Codable {
        public var pid: Int32
        public var model: String
        public var url: String
        public var warm: Bool
        public init(pid: Int32, model: String, url: String, warm: Bool) {
            self.pid = pid; self.model = model; self.url = url; self.warm = warm
        }
    }

    static func write(_ state: State, to path: String) {
        guard let data = try? JSONEncoder().encode(state) else { return }
        let temporary = path + ".\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else { return }
        if rename(temporary, path) != 0 { unlink(temporary) }
    }

    static func remove(_ path: String) { unlink(path) }

    /// The engine named by the file while its process lives (and is a llama-server), else nil.
    public static func live(_ path: String) -> State? {
        guard let data = FileManager.default.contents(atPath: path),
              let state = try? JSONDecoder().decode(State.self, from: data), state.pid > 0, kill(state.pid, 0) == 0 else { return nil }
        let cmdline = (try? String(contentsOfFile: "/proc/\(state.pid)/cmdline", encoding: .utf8)) ?? ""
        return cmdline.contains("llama-server") ? state : nil
    }
}
