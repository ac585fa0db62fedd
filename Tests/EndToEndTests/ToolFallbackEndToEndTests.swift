import Dispatch
import Foundation
import Testing

/// #23: the Homebase dies in the middle of a turn that carries tools (the request accepted, its
/// engine still working on it): the on-device model answers the SAME request, tools included,
/// through a real `guest serve` and the official `openai` client. The Homebase's engine is the
/// stand-in in `slow-tools` mode (TEST PEER: a llama-server whose template takes tools, that
/// stays silent for a minute); the on-device engine is the real llama-server (`--jinja`), whose
/// forced tool call can only come back if the tools reached it.
@Suite(.serialized) struct ToolFallbackEndToEndTests {
    /// The stand-in engine's `/served` count `key`: `requests` it took (not its one-token
    /// trials), or `half_sent`, the half tool calls it streamed.
    static func served(_ lb: Loopback, _ key: String) -> Int {
        guard let r = try? lb.procs.capture("/usr/bin/curl", ["-s", lb.engineURL + "/served"]),
              let o = try? JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any] else { return 0 }
        return o[key] as? Int ?? 0
    }

    /// `serve_tools_client.py` in `scenario` against `guest`'s running serve, on its own thread: the
    /// test waits meanwhile for the Homebase's engine to hold the turn.
    final class ToolsClient: @unchecked Sendable {
        private(set) var line: Result<String, Error>?
        private let finished = DispatchSemaphore(value: 0)

        init(_ guest: Guest, _ scenario: String) throws {
            let base = try ServeDoorsEndToEndTests.serveBase(guest)
            Thread {
                self.line = Result { try runJSONPeer(testsFile("EndToEndTests/peers/serve_tools_client.py"), [base, scenario]) }
                self.finished.signal()
            }.start()
        }

        /// Kills the Homebase, waits for the client and reads its JSON line, which must come
        /// from the on-device model with nothing raised; `why` is what a failure prints.
        func answerAfterTheHomebaseDies(_ lb: Loopback, _ guest: Guest) throws -> (o: [String: Any], why: String) {
            lb.killHomebase()
            #expect(finished.wait(timeout: .now() + 240) == .success, "the client never finished")
            let line = try #require(try line?.get())
            let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let why = "\(line)\nguest: \(guest.log.suffix(2000))\nserve: \(lb.procs.read("serve.log").suffix(1500))"
            #expect(o["raised"] == nil, "\(why)")
            #expect(o["brain"] as? String == "on-device", "\(why)")
            return (o, why)
        }
    }

    @Test func aToolTurnWhoseHomebaseDiesIsAnsweredOnDeviceWithTheSameTools() throws {
        let (lb, guest, _) = try ServeLinkEndToEndTests.laptopWithServe(engine: .standIn(mode: "slow-tools"))
        defer { lb.stopAll() }
        let client = try ToolsClient(guest, "openai-whole")
        try lb.procs.waitUntil(60, "the Homebase's engine to take the turn") { Self.served(lb, "requests") >= 1 || client.line != nil }
        #expect(client.line == nil, "answered before the Homebase's engine had the turn: \(String(describing: client.line))")
        let (o, why) = try client.answerAfterTheHomebaseDies(lb, guest)
        let call = try #require(o["call"] as? [String: Any], "no tool call came back: \(why)")
        #expect(call["name"] as? String == "get_time", "\(why)")
        #expect(o["finish_reason"] as? String == "tool_calls", "\(why)")
        #expect(guest.log.contains("fallback: homebase failed"), "the Homebase was asked first: \(why)")
    }

    /// The Homebase's engine (stand-in `half-tools`, TEST PEER) has streamed half a tool call
    /// when the Homebase is killed: the streaming client's assembled calls are exactly the
    /// on-device model's one whole call, at index 0, its arguments JSON.
    @Test func aHalfStreamedCallIsNeverLeftBesideTheFallbacksCall() throws {
        let (lb, guest, _) = try ServeLinkEndToEndTests.laptopWithServe(engine: .standIn(mode: "half-tools"))
        defer { lb.stopAll() }
        let client = try ToolsClient(guest, "openai-stream")
        try lb.procs.waitUntil(60, "the Homebase's engine to send half a call") { Self.served(lb, "half_sent") >= 1 || client.line != nil }
        // The half call crosses the relay to the guest (no event to wait on there): a settle, not a measure.
        Thread.sleep(forTimeInterval: 1)
        let (o, why) = try client.answerAfterTheHomebaseDies(lb, guest)
        #expect(o["call_indexes"] as? [Int] == [0], "\(why)")
        #expect(o["arguments_parse"] as? Bool == true, "\(why)")
        #expect((o["call"] as? [String: Any])?["id"] as? String != "call_dead", "\(why)")
        #expect(guest.log.contains("fallback: homebase failed"), "\(why)")
    }
}
