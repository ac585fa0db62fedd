import Courier
import Foundation
import Testing
import Wire
@testable import HomebaseAgent

/// Every error a host answers, each caused for real: a scripted engine on loopback (or none),
/// a real relay in process, a second device asking.
@Suite(.serialized) struct ServingErrorTests {
    /// Runs `body` against a started host whose runtime serves `model` at `url`.
    func withHost(_ url: String, model: String = "scripted", sibling: Bool = true,
                  configure: (inout HomebaseAgent.Configuration) -> Void = { _ in },
                  _ body: (HostFixture) async throws -> Void) async throws {
        let f = try await HostFixture(runtime: (url, [model]), sibling: sibling, configure: configure)
        try await f.start()
        do { try await body(f) } catch { await f.stop(); throw error }
        await f.stop()
    }

    @Test func aScriptedAnswerStreamsThroughTheRelay() async throws {
        try await withHost(try ScriptedEngine.url("ok")) { f in
            let (outcome, a) = await f.guest.ask(request("scripted"), to: f.host)
            #expect(outcome == .sent)
            #expect(a.accepted && a.acceptBeforeText)
            #expect(a.text == "Hello!")
            #expect(a.finalChunk)
            #expect(a.done?.finishReason == "stop")
            #expect(a.done?.promptTokens == 7 && a.done?.completionTokens == 3)
            #expect(a.failures.isEmpty)
        }
    }

    @Test func slowFirstTokenIsAcceptedFirst() async throws {
        try await withHost(try ScriptedEngine.url("slowfirst")) { f in
            let (_, a) = await f.guest.ask(request("scripted"), to: f.host)
            #expect(a.accepted && a.acceptBeforeText)
            #expect(a.text == "Hello!")
            #expect(a.done != nil)
        }
    }

    @Test func aSlowPrefillIsKeptAliveWithEmptyChunks() async throws {
        try await withHost(try ScriptedEngine.url("slowfirst"), configure: { $0.keepAliveInterval = .milliseconds(50) }) { f in
            let (_, a) = await f.guest.ask(request("scripted"), to: f.host)
            #expect(a.accepted && a.acceptBeforeText)
            #expect(a.keepAlivesBeforeText >= 1, "no keep-alive during the engine's 500 ms before its first token")
            #expect(a.text == "Hello!" && a.done != nil && a.finalChunk)
        }
    }

    /// The engine's silence limit is below the guest's 30 s stall rung (so the guest hears our
    /// error, not silence), and the error names it.
    @Test func anEngineStallIsAHostErrorThatNamesTheLimit() async throws {
        #expect(try HomebaseAgent.Configuration(relayURL: "wss://relay.example/v1/connect").engineTimeouts.idle == .seconds(20))
        try await withHost(try ScriptedEngine.url("stall"), configure: { $0.engineTimeouts.idle = .milliseconds(300) }) { f in
            let (_, a) = await f.guest.ask(request("scripted"), to: f.host)
            #expect(a.error?.code == .hostError)
            #expect(a.error?.message == "the engine sent nothing for 300 ms", "\(String(describing: a.error))")
        }
    }

    @Test(arguments: ["http500", "inband", "disconnect", "stall"])
    func engineFailuresAreHostErrors(_ scenario: String) async throws {
        try await withHost(try ScriptedEngine.url(scenario), configure: { $0.engineTimeouts.idle = .milliseconds(300) }) { f in
            let (_, a) = await f.guest.ask(request("scripted"), to: f.host)
            #expect(a.accepted)
            #expect(a.error?.code == .hostError)
            #expect(a.done == nil)
            if a.chunks > 0 { #expect(a.finalChunk) }  // a stream that started is closed before the error
            #expect(!(a.error?.message.contains("Say hello") ?? true))
        }
    }

    @Test func refusedConnectionIsAHostError() async throws {
        try await withHost("http://127.0.0.1:\(try freePort())") { f in
            let (_, a) = await f.guest.ask(request("scripted"), to: f.host)
            #expect(a.error?.code == .hostError)
            #expect(a.text.isEmpty)
        }
    }

    @Test func aModelNotServedIsUnavailable() async throws {
        try await withHost(try ScriptedEngine.url("ok")) { f in
            let (_, a) = await f.guest.ask(request("no-such-model"), to: f.host)
            #expect(a.error?.code == .modelUnavailable)
            #expect(!a.accepted)
        }
    }

    @Test func emptyMessagesAreABadRequest() async throws {
        try await withHost(try ScriptedEngine.url("ok")) { f in
            let (_, a) = await f.guest.ask(request("scripted", messages: []), to: f.host)
            #expect(a.error?.code == .badRequest)
        }
    }

    @Test func overTheLimitIsBusy() async throws {
        let id = UUID().uuidString.lowercased()
        try await withHost(try ScriptedEngine.url("endless", id: id), configure: {
            $0.maxConcurrent = 1; $0.queueLength = 0
        }) { f in
            let first = request("scripted")
            let (outcome, stream) = await f.guest.courier.sendRequest(first, to: f.host)
            #expect(outcome == .sent)
            var it = stream.makeAsyncIterator()
            var sawText = false
            while let r = await it.next() { if case .chunk = r { sawText = true; break } }
            #expect(sawText)
            let (_, second) = await f.guest.ask(request("scripted"), to: f.host)
            #expect(second.error?.code == .busy)
            _ = await f.guest.courier.send(.cancel(requestID: first.requestID), to: f.host)
            stream.cancel()
        }
    }

    @Test func cancelAbortsTheEngineRequest() async throws {
        let id = UUID().uuidString.lowercased()
        try await withHost(try ScriptedEngine.url("endless", id: id)) { f in
            let r = request("scripted")
            let (_, stream) = await f.guest.courier.sendRequest(r, to: f.host)
            var it = stream.makeAsyncIterator()
            while let reply = await it.next() { if case .chunk = reply { break } }
            #expect(await f.guest.courier.send(.cancel(requestID: r.requestID), to: f.host) == .sent)
            stream.cancel()
            // The engine sees its connection closed long before its 3,000 tokens are out.
            try await eventually("the engine saw the connection close") {
                try await ScriptedEngine.records(id).contains { $0["event"] as? String == "closed" }
            }
            let records = try await ScriptedEngine.records(id)
            #expect(!records.contains { $0["event"] as? String == "finished" })
            try await eventually("the host counted the cancel") { f.agent.state.withLock { $0.serving.active.isEmpty } }
        }
    }

    @Test func aGuestThatDisappearsAbortsTheEngineRequest() async throws {
        let id = UUID().uuidString.lowercased()
        try await withHost(try ScriptedEngine.url("endless", id: id)) { f in
            let (_, stream) = await f.guest.courier.sendRequest(request("scripted"), to: f.host)
            var it = stream.makeAsyncIterator()
            while let reply = await it.next() { if case .chunk = reply { break } }
            f.guest.stop()  // gone from the relay: the next chunk comes back not-here
            try await eventually("the engine saw the connection close") {
                try await ScriptedEngine.records(id).contains { $0["event"] as? String == "closed" }
            }
            #expect(f.agent.state.withLock { $0.serving.outcomes["requester-gone"] ?? 0 } >= 1)
        }
    }
}
