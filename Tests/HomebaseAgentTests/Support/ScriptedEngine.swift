import Foundation
import Inference

/// The scripted engine (TestSupport's peers/engine_peer.py), one per test process: scenarios
/// answer chat only (other paths get what a probe meets), "stall" holds 5 s.
enum ScriptedEngine {
    private static let shared: Result<PortedProcess, Error> = Result {
        try startEnginePeer(["--chat-only", "--stall-seconds", "5"])
    }

    static func port() throws -> Int { try shared.get().port }

    /// Base URL of one scenario run: `http://127.0.0.1:PORT/s/NAME~ID`.
    static func url(_ scenario: String, id: String = UUID().uuidString.lowercased()) throws -> String {
        "http://127.0.0.1:\(try port())/s/\(scenario)~\(id)"
    }

    /// What the peer recorded for `id`.
    static func records(_ id: String) async throws -> [[String: Any]] {
        let r = try await HTTPStreamClient().send(HTTPStreamRequest(url: "http://127.0.0.1:\(try port())/record/\(id)"))
        let data = try await r.collect()
        return (try JSONSerialization.jsonObject(with: Data(data)) as? [[String: Any]]) ?? []
    }
}
