// packageRoot, pythonPath, PortedProcess and ProcessBox are TestSupport's, re-exported for
// every file of this target.
@_exported import TestSupport
import Foundation
import Synchronization
import Testing
@testable import Inference

/// This target's setup errors are TestSupport's.
typealias TestSetupError = SetupError

/// The scripted engine (TestSupport's peers/engine_peer.py), one per test process, shared by
/// the tests.
enum ScriptedEngine {
    private static let shared: Result<PortedProcess, Error> = Result { try startEnginePeer() }

    static func port() throws -> Int { try shared.get().port }

    /// Base URL of one scenario: `http://127.0.0.1:PORT/s/NAME`.
    static func url(_ scenario: String) throws -> String { "http://127.0.0.1:\(try port())/s/\(scenario)" }

    /// What the peer recorded for requests carrying `X-Test-ID: id`.
    static func records(_ id: String) async throws -> [[String: Any]] {
        let data = try await get("http://127.0.0.1:\(try port())/record/\(id)")
        return (try JSONSerialization.jsonObject(with: Data(data)) as? [[String: Any]]) ?? []
    }

    static func release(_ id: String) async throws {
        _ = try await get("http://127.0.0.1:\(try port())/release/\(id)")
    }

    /// Waits (up to a hang guard, polling) until the peer recorded an event named `event`.
    static func waitForRecord(_ id: String, event: String) async throws -> [String: Any] {
        for _ in 0..<500 {
            if let r = try await records(id).first(where: { $0["event"] as? String == event }) { return r }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestSetupError("the peer never recorded \(event) for \(id)")
    }
}

/// A GET through the client under test, body collected.
func get(_ url: String, timeouts: HTTPTimeouts = HTTPTimeouts()) async throws -> [UInt8] {
    let r = try await HTTPStreamClient().send(HTTPStreamRequest(url: url, timeouts: timeouts))
    try await r.requireSuccess()
    return try await r.collect()
}

/// A fresh id tying a test's requests to the peer's records.
func testID() -> String { UUID().uuidString.lowercased() }

/// Every event of a chat stream, or the error that ended it.
func drain(_ stream: AsyncThrowingStream<ChatEvent, Error>) async -> (events: [ChatEvent], error: Error?) {
    var events: [ChatEvent] = []
    do {
        for try await e in stream { events.append(e) }
        return (events, nil)
    } catch {
        return (events, error)
    }
}

/// The concatenated `.text` of a list of events.
func text(of events: [ChatEvent]) -> String {
    events.reduce(into: "") { acc, e in if case .text(let t) = e { acc += t } }
}

/// A client for a scripted scenario, tagged with the test's id.
func scriptedClient(_ scenario: String, id: String, apiKey: String? = nil,
                    timeouts: HTTPTimeouts = HTTPTimeouts()) throws -> OpenAIChatClient {
    OpenAIChatClient(.init(baseURL: try ScriptedEngine.url(scenario), apiKey: apiKey,
                           extraHeaders: [HTTPHeader("X-Test-ID", id)], timeouts: timeouts))
}

let hello = ChatRequest(model: "scripted", messages: [ChatMessage(role: .user, content: "Say hello")], maxTokens: 8)
