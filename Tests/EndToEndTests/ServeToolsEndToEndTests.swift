import Foundation
import Glibc
import Testing

/// `script` (an EndToEndTests peer) in `scenario` against a fresh on-device serve of guest
/// `name`: its JSON, nothing raised; `why` is what a failure prints.
private func onDevice(_ name: String, _ script: String, _ scenario: String) throws -> (o: [String: Any], why: String) {
    let serve = try OnDeviceServe(name: name)
    defer { serve.stop() }
    let (o, line) = try jsonPeer("EndToEndTests/peers/" + script, [serve.base, scenario])
    let why = "\(line)\n\(serve.procs.read("serve.log").suffix(2000))"
    #expect(o["raised"] == nil, "\(why)")
    return (o, why)
}

/// Tool calls through a real `guest serve` answering on-device (its llama-server runs with
/// `--jinja`; `tool_choice: "required"` makes the grammar force a call even from the tiny random
/// model), driven by the official `openai` and `ollama` Python clients: the call comes back, the
/// caller sends its result, the second turn is answered.
@Suite(.serialized) struct ServeToolsEndToEndTests {
    @Test(arguments: ["openai-whole", "openai-stream", "ollama-whole", "ollama-stream"])
    func toolCallRoundTripOnDevice(_ scenario: String) throws {
        let (o, why) = try onDevice("tools", "serve_tools_client.py", scenario)
        let call = try #require(o["call"] as? [String: Any], "\(why)")
        #expect(call["name"] as? String == "get_time", "\(why)")
        #expect((call["id"] as? String)?.isEmpty == false, "\(why)")
        #expect(o["arguments_parse"] as? Bool == true, "\(why)")
        #expect(o["finish_reason"] as? String == "tool_calls", "\(why)")
        if scenario.hasSuffix("stream") {
            // Written once whole, in one delta (#23: a failover never leaves half a call behind).
            #expect(o["call_chunks"] as? Int == 1, "\(why)")
        }
        #expect(o["second_finish"] as? String != nil, "the second turn was not answered: \(why)")
        #expect(o["brain"] as? String == "on-device", "\(why)")
    }
}

/// Options a client sends through a real `guest serve` reach the on-device engine: a JSON Schema
/// shapes the answer, a seed repeats it, a stop string ends it (both clients).
@Suite(.serialized) struct ServeOptionsEndToEndTests {
    @Test(arguments: ["openai-format", "ollama-format", "openai-seed", "ollama-seed"])
    func optionsReachTheEngine(_ scenario: String) throws {
        let (o, why) = try onDevice("options", "serve_options_client.py", scenario)
        #expect(o["finish"] as? String == "stop", "\(why)")
        if scenario.hasSuffix("format") {
            let content = try #require(o["content"] as? String, "\(why)")
            let object = try JSONSerialization.jsonObject(with: Data(content.utf8)) as? [String: Any]
            #expect(object.map { Set($0.keys) } == ["ok"], "\(why)")
        } else {
            let first = try #require(o["first"] as? String, "\(why)"), stop = try #require(o["stop"] as? String, "\(why)")
            #expect(first.count >= 12, "\(why)")
            #expect(o["again"] as? String == first, "the same seed gave another answer: \(why)")
            let cut = try #require(first.range(of: stop), "\(why)")
            #expect(o["stopped"] as? String == String(first[..<cut.lowerBound]), "\(why)")
        }
    }
}

/// The same round trip with the model turns on the laptop's own Homebase, through the relay
/// (request v2: the tools, the call's deltas and the result cross the wire; #23).
@Suite(.serialized) struct RelayedToolsEndToEndTests {
    @Test(arguments: ["openai-whole", "openai-stream", "ollama-whole", "ollama-stream"])
    func toolCallRoundTripOnTheHomebase(_ scenario: String) throws {
        let (lb, guest, _) = try ServeLinkEndToEndTests.laptopWithServe()
        defer { lb.stopAll() }
        let base = try ServeDoorsEndToEndTests.serveBase(guest)
        let (o, line) = try jsonPeer("EndToEndTests/peers/serve_tools_client.py", [base, scenario])
        #expect(o["raised"] == nil, "\(line)")
        #expect((o["call"] as? [String: Any])?["name"] as? String == "get_time", "\(line)")
        #expect(o["finish_reason"] as? String == "tool_calls", "\(line)")
        #expect(o["second_finish"] as? String != nil, "\(line)")
        #expect(o["brain"] as? String == "homebase", "\(line)")
        if scenario.hasPrefix("openai") { #expect(o["second_brain"] as? String == "homebase", "\(line)") }
    }
}
