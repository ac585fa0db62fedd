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
    /// Requests the stand-in engine took (not its one-token trials).
    static func served(_ lb: Loopback) -> Int {
        guard let r = try? lb.procs.capture("/usr/bin/curl", ["-s", lb.engineURL + "/served"]),
              let o = try? JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any] else { return 0 }
        return o["requests"] as? Int ?? 0
    }

    @Test func aToolTurnWhoseHomebaseDiesIsAnsweredOnDeviceWithTheSameTools() throws {
        let lb = try Loopback(engine: .standIn(mode: "slow-tools"))
        defer { lb.stopAll() }
        let guest = try lb.addGuest("laptop")
        try lb.startHomebase()
        try guest.waitForAdvert()
        _ = try ServeLinkEndToEndTests.startServe(lb, guest)
        let base = try ServeDoorsEndToEndTests.serveBase(guest)

        // The client's turn runs while this thread waits for the Homebase's engine to hold it.
        final class Box: @unchecked Sendable { var line: Result<String, Error>? }
        let box = Box(), finished = DispatchSemaphore(value: 0)
        Thread {
            box.line = Result { try runJSONPeer(testsFile("EndToEndTests/peers/serve_tools_client.py"), [base, "openai-whole"]) }
            finished.signal()
        }.start()
        try lb.procs.waitUntil(60, "the Homebase's engine to take the turn") { Self.served(lb) >= 1 || box.line != nil }
        #expect(box.line == nil, "answered before the Homebase's engine had the turn: \(String(describing: box.line))")
        lb.killHomebase()
        #expect(finished.wait(timeout: .now() + 240) == .success, "the client never finished")
        let line = try #require(try box.line?.get())
        let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let why = "\(line)\nguest: \(guest.log.suffix(2000))\nserve: \(lb.procs.read("serve.log").suffix(1500))"
        #expect(o["raised"] == nil, "\(why)")
        #expect(o["brain"] as? String == "on-device", "\(why)")
        let call = try #require(o["call"] as? [String: Any], "no tool call came back: \(why)")
        #expect(call["name"] as? String == "get_time", "\(why)")
        #expect(o["finish_reason"] as? String == "tool_calls", "\(why)")
        #expect(guest.log.contains("fallback: homebase failed"), "the Homebase was asked first: \(why)")
    }

    /// The Homebase's engine (stand-in `half-tools`, TEST PEER) has streamed half a tool call
    /// when the Homebase is killed: the streaming client's assembled calls are exactly the
    /// on-device model's one whole call, at index 0, its arguments JSON.
    @Test func aHalfStreamedCallIsNeverLeftBesideTheFallbacksCall() throws {
        let lb = try Loopback(engine: .standIn(mode: "half-tools"))
        defer { lb.stopAll() }
        let guest = try lb.addGuest("laptop")
        try lb.startHomebase()
        try guest.waitForAdvert()
        _ = try ServeLinkEndToEndTests.startServe(lb, guest)
        let base = try ServeDoorsEndToEndTests.serveBase(guest)

        final class Box: @unchecked Sendable { var line: Result<String, Error>? }
        let box = Box(), finished = DispatchSemaphore(value: 0)
        Thread {
            box.line = Result { try runJSONPeer(testsFile("EndToEndTests/peers/serve_tools_client.py"), [base, "openai-stream"]) }
            finished.signal()
        }.start()
        try lb.procs.waitUntil(60, "the Homebase's engine to send half a call") { Self.halfSent(lb) || box.line != nil }
        // The half call crosses the relay to the guest (no event to wait on there): a settle, not a measure.
        Thread.sleep(forTimeInterval: 1)
        lb.killHomebase()
        #expect(finished.wait(timeout: .now() + 240) == .success, "the client never finished")
        let line = try #require(try box.line?.get())
        let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let why = "\(line)\nguest: \(guest.log.suffix(2000))\nserve: \(lb.procs.read("serve.log").suffix(1500))"
        #expect(o["raised"] == nil, "\(why)")
        #expect(o["brain"] as? String == "on-device", "\(why)")
        #expect(o["call_indexes"] as? [Int] == [0], "\(why)")
        #expect(o["arguments_parse"] as? Bool == true, "\(why)")
        #expect((o["call"] as? [String: Any])?["id"] as? String != "call_dead", "\(why)")
        #expect(guest.log.contains("fallback: homebase failed"), "\(why)")
    }

    static func halfSent(_ lb: Loopback) -> Bool {
        guard let r = try? lb.procs.capture("/usr/bin/curl", ["-s", lb.engineURL + "/served"]),
              let o = try? JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any] else { return false }
        return (o["half_sent"] as? Int ?? 0) >= 1
    }
}
