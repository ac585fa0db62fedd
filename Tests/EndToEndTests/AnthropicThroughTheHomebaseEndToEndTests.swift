import Foundation
import Testing

/// The official `anthropic` client's tool_use and image through `/v1/messages`, routed by a real
/// `guest serve` through the relay to a real Homebase (#17's Tests: "anthropic (... tool_use,
/// an image)"); DoorsClientTests covers the same shapes against a scripted brain.
@Suite(.serialized) struct AnthropicThroughTheHomebaseEndToEndTests {
    /// `tool_choice: {"type":"any","disable_parallel_tool_use":true}` and the prefill of the call's
    /// tag make llama-server's grammar force one call even from the tiny random model (`--jinja`):
    /// the tool_use comes back whole and streamed from brain `homebase`, and the tool_result turn
    /// is answered there too.
    @Test func toolUseThroughTheHomebase() throws {
        let (lb, guest, _) = try ServeLinkEndToEndTests.laptopWithServe()
        defer { lb.stopAll() }
        let base = try ServeDoorsEndToEndTests.serveBase(guest)
        let o = try ServeDoorsEndToEndTests.peer("anthropic_client.py", [base, "k", "tool_round", lb.model, "120"])
        let why = "\(o)\n\(lb.procs.read("serve.log").suffix(1500))"
        #expect(o["raised"] == nil, "\(why)")
        #expect(o["brain_header"] as? String == "homebase" && o["stop_reason"] as? String == "tool_use", "\(why)")
        let uses = o["tool_uses"] as? [[String: Any]] ?? []
        #expect(uses.count == 1 && uses.first?["name"] as? String == "get_time" && uses.first?["input"] is [String: Any], "\(why)")
        #expect((uses.first?["id"] as? String)?.isEmpty == false, "\(why)")
        #expect(o["streamed_brain"] as? String == "homebase" && o["streamed_stop_reason"] as? String == "tool_use", "\(why)")
        #expect(o["streamed_tool_uses"] as? [String] == ["get_time"], "\(why)")
        #expect(o["second_brain"] as? String == "homebase", "\(why)")
        #expect(["end_turn", "max_tokens"].contains(o["second_stop_reason"] as? String ?? ""), "\(why)")
    }

    /// A base64 image block reaches the Homebase's engine byte for byte: llama-server behind the
    /// CAPTURE PEER of ImagesThroughRelayEndToEndTests (it claims vision, records each image's
    /// SHA-256 and answers "I got 1 image(s)"; the tiny model cannot see).
    @Test func anImageThroughTheHomebase() throws {
        let (lb, guest, _) = try ServeLinkEndToEndTests.laptopWithServe(engine: .visionCapture)
        defer { lb.stopAll() }
        let base = try ServeDoorsEndToEndTests.serveBase(guest)
        let o = try ServeDoorsEndToEndTests.peer("anthropic_client.py", [base, "k", "image_sent", lb.model, "120"])
        let why = "\(o)\n\(guest.log.suffix(2000))\n\(lb.procs.read("capture.log"))"
        #expect(o["brain_header"] as? String == "homebase", "\(why)")
        #expect(o["text"] as? String == "I got 1 image(s)", "\(why)")
        let captured = try lb.procs.capture("/usr/bin/curl", ["-sf", lb.engineURL + "/captured"]).out
        let list = (try? JSONSerialization.jsonObject(with: Data(captured.utf8))) as? [[String: Any]] ?? []
        #expect(list.count == 1 && list.first?["sha256"] as? String == o["sha256"] as? String, "\(captured) \(why)")
        #expect(list.first?["length"] as? Int == o["length"] as? Int && list.first?["media_type"] as? String == "image/png", "\(captured)")
    }
}
