import Foundation
import Testing

/// #23: the model's turns cross the wire, tool execution stays home. Real processes: the relay,
/// the own Homebase, `guest serve` on the laptop, and the engine: the stand-in in `tools` mode
/// (TEST PEER: it streams a tool call the way an engine does, because the tiny random-weights
/// model does not call tools even with `tool_choice: "required"` on this llama-server build),
/// then llama-server itself (`--jinja`) for the tool turns.
@Suite(.serialized) struct ToolsThroughRelayEndToEndTests {
    static var tool: [String: Any] { ["type": "function", "function": [
        "name": "now", "description": "the time in a zone",
        "parameters": ["type": "object", "properties": ["tz": ["type": "string"]], "required": ["tz"]],
    ] as [String: Any]] }

    struct Answer {
        let brain: String?
        let body: [String: Any]
        let raw: String
    }

    /// POST `body` to serve's `path`, not streamed; the brain header and the JSON body.
    static func post(_ lb: Loopback, port: Int, _ path: String, _ body: [String: Any]) throws -> Answer {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        let r = try lb.procs.capture("/usr/bin/curl", ["-s", "-D", "-", "-H", "Content-Type: application/json", "-d", json,
                                                       "http://127.0.0.1:\(port)\(path)"])
        let text = r.out.replacingOccurrences(of: "\r\n", with: "\n")
        guard let split = text.range(of: "\n\n") else { throw Failure("no HTTP head in: \(r.out) \(r.err)") }
        let head = text[..<split.lowerBound].lowercased()
        let brain = head.split(separator: "\n").first { $0.hasPrefix("x-homebase-brain:") }
            .map { $0.dropFirst("x-homebase-brain:".count).trimmingCharacters(in: .whitespaces) }
        let rest = String(text[split.upperBound...])
        let object = (try? JSONSerialization.jsonObject(with: Data(rest.utf8))) as? [String: Any] ?? [:]
        return Answer(brain: brain, body: object, raw: rest)
    }

    static func serve(_ lb: Loopback, _ guest: Guest) throws -> Int {
        let port = try Processes.freePort()
        let waits = Guest.chatWaits.filter { $0.name != "--max-tokens" }.flatMap { [$0.name, $0.value] }
        _ = try lb.procs.start(lb.bin.path("guest"), ["serve", "--listen", "127.0.0.1:\(port)"] + waits + guest.globalFlags,
                               log: "serve.log")
        try lb.procs.waitUntil(60, "guest serve") {
            Processes.canConnect(port) && FileManager.default.fileExists(atPath: guest.directory + "/serve.json")
        }
        return port
    }

    @Test func aToolCallComesBackThroughTheRelayAndTheResultIsAnsweredByTheHomebase() throws {
        let lb = try Loopback(engine: .standIn(mode: "tools"))
        defer { lb.stopAll() }
        let guest = try lb.addGuest("laptop")
        try lb.startHomebase()
        try guest.waitForAdvert()
        let port = try Self.serve(lb, guest)
        let ask: [String: Any] = ["role": "user", "content": "what time is it in UTC?"]
        let first = try Self.post(lb, port: port, "/api/chat",
                                  ["model": lb.model, "stream": false, "messages": [ask], "tools": [Self.tool]])
        let logs = "\(first.raw)\n\(guest.log)\n\(lb.procs.read("serve.log"))"
        #expect(first.brain == "homebase", "\(logs)")
        let message = first.body["message"] as? [String: Any] ?? [:]
        let calls = message["tool_calls"] as? [[String: Any]] ?? []
        let function = calls.first?["function"] as? [String: Any] ?? [:]
        #expect(function["name"] as? String == "now", "\(logs)")
        #expect((function["arguments"] as? [String: Any])?["tz"] as? String == "UTC", "\(logs)")

        // The engine behind the Homebase was offered the tool.
        let seen = try lb.procs.capture("/usr/bin/curl", ["-sf", lb.engineURL + "/last"]).out
        #expect(seen.contains("\"now\""), "\(seen)")

        // The caller ran the tool; its result is the next turn, answered by the Homebase again.
        let turn: [[String: Any]] = [ask, ["role": "assistant", "content": "", "tool_calls": calls],
                                     ["role": "tool", "content": "12:00", "tool_call_id": "call_standin"]]
        let second = try Self.post(lb, port: port, "/api/chat",
                                   ["model": lb.model, "stream": false, "messages": turn, "tools": [Self.tool]])
        #expect(second.brain == "homebase", "\(second.raw)\n\(guest.log)")
        #expect((second.body["message"] as? [String: Any])?["content"] as? String == "the tool said: 12:00", "\(second.raw)")
        let last = try lb.procs.capture("/usr/bin/curl", ["-sf", lb.engineURL + "/last"]).out
        #expect(last.contains("\"tool\"") && last.contains("12:00"), "\(last)")
    }

    @Test func toolTurnsReachTheRealEngineOnTheHomebase() throws {
        let lb = try Loopback(engine: .llama)
        defer { lb.stopAll() }
        let guest = try lb.addGuest("laptop")
        try lb.startHomebase()
        try guest.waitForAdvert()
        let port = try Self.serve(lb, guest)
        let call: [String: Any] = ["id": "call_1", "type": "function",
                                   "function": ["name": "now", "arguments": "{\"tz\":\"UTC\"}"] as [String: Any]]
        let turn: [[String: Any]] = [["role": "user", "content": "what time is it in UTC?"],
                                     ["role": "assistant", "content": "", "tool_calls": [call]],
                                     ["role": "tool", "content": "12:00", "tool_call_id": "call_1"]]
        let answer = try Self.post(lb, port: port, "/v1/chat/completions",
                                   ["model": lb.model, "stream": false, "max_tokens": 8, "messages": turn,
                                    "tools": [Self.tool], "tool_choice": "required"])
        #expect(answer.brain == "homebase", "\(answer.raw)\n\(guest.log)\n\(lb.procs.read("homebase.log"))")
        #expect(answer.body["choices"] != nil, "\(answer.raw)")
        #expect(!guest.log.contains("falling back"), "\(guest.log)")
    }
}
