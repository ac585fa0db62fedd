import Foundation
import Testing

/// #23: an image sent through `guest serve` reaches the Homebase's engine byte for byte,
/// through the relay (5 MB: the request travels as about 160 `part`s). Real processes: the
/// relay, the own Homebase, `guest serve`; the engine is llama-server behind a CAPTURE PEER
/// (peers/vision_capture_engine.py) that claims vision, so the router sends images there, and
/// records what it is sent (the tiny model cannot see).
@Suite(.serialized) struct ImagesThroughRelayEndToEndTests {
    @Test func aFiveMegabyteImageArrivesAtTheHomebasesEngineByteForByte() throws {
        let (lb, guest, _) = try ServeLinkEndToEndTests.laptopWithServe(engine: .visionCapture)
        defer { lb.stopAll() }
        let base = try ServeDoorsEndToEndTests.serveBase(guest)

        var rng = SplitMix64(seed: 23)
        let image = Data((0..<(5 << 20)).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        let imagePath = lb.procs.work + "/image.png", bodyPath = lb.procs.work + "/body.json"
        try image.write(to: URL(fileURLWithPath: imagePath))
        let body: [String: Any] = [
            "model": lb.model, "stream": false, "max_tokens": 8,
            "messages": [["role": "user", "content": [
                ["type": "text", "text": "what is this?"],
                ["type": "image_url", "image_url": ["url": "data:image/png;base64," + image.base64EncodedString()]],
            ] as [Any]]],
        ]
        try JSONSerialization.data(withJSONObject: body).write(to: URL(fileURLWithPath: bodyPath))
        let r = try lb.procs.capture("/usr/bin/curl", ["-s", "-D", "-", "-H", "Content-Type: application/json",
                                                       "--data-binary", "@" + bodyPath, base + "/v1/chat/completions"])
        let out = r.out.replacingOccurrences(of: "\r\n", with: "\n")
        let why = "\(out.suffix(1500))\n\(guest.log.suffix(3000))\n\(lb.procs.read("capture.log"))"
        #expect(out.lowercased().contains("x-homebase-brain: homebase"), "\(why)")
        #expect(out.contains("I got 1 image(s)"), "\(why)")

        let captured = try lb.procs.capture("/usr/bin/curl", ["-sf", lb.engineURL + "/captured"]).out
        let list = (try? JSONSerialization.jsonObject(with: Data(captured.utf8))) as? [[String: Any]] ?? []
        let sum = try lb.procs.capture("/usr/bin/sha256sum", [imagePath]).out.prefix { $0 != " " }
        #expect(list.count == 1, "\(captured)")
        #expect(list.first?["length"] as? Int == 5 << 20, "\(captured)")
        #expect(list.first?["sha256"] as? String == String(sum), "\(captured)")
        #expect(list.first?["media_type"] as? String == "image/png", "\(captured)")
    }
}
