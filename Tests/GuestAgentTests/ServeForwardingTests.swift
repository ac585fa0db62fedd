import Foundation
@testable import GuestAgent
import Glibc
import Inference
import Testing

/// What a client sends through `guest serve` is what the chosen brain receives: every option, the
/// tools, and a 5 MB image byte for byte. The brain is the user's chosen OpenAI cloud, played by
/// the labelled STAND-IN (`peers/cloud_standin.py`), which keeps every body it was sent.
@Suite(.serialized) struct ServeForwardingTests {
    static let imageBytes = 5_000_000

    /// The image the client script builds (see `peers/serve_forward_client.py`).
    static var image: [UInt8] {
        var b = (0..<imageBytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ ($0 >> 9)) }
        b.replaceSubrange(0..<8, with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        return b
    }

    @Test(arguments: ["openai", "ollama"])
    func everythingReachesTheBrain(_ client: String) async throws {
        let peer = try CloudStandIn()
        defer { peer.stop() }
        let (_, serving) = try GuestRunner.servingOpenAI(peer.url)
        defer { _ = serving.stop() }
        let line = try runJSONPeer(peerScript("serve_forward_client.py"), [serving.hostPort, client])
        #expect(line.contains("Hello from the OpenAI stand-in"), "\(line)")

        let r = try await HTTPStreamClient().send(HTTPStreamRequest(url: peer.url + "/bodies"))
        let bodies = try JSONSerialization.jsonObject(with: Data(try await r.collect(limit: 64 << 20))) as? [[String: Any]] ?? []
        let body = try #require(bodies.last { $0["messages"] != nil }, "the brain got no chat request")
        let content = try #require(((body["messages"] as? [[String: Any]])?.first?["content"]) as? [[String: Any]])
        #expect(content.first?["type"] as? String == "text")
        let url = try #require((content.last?["image_url"] as? [String: Any])?["url"] as? String)
        #expect(url.hasPrefix("data:image/png;base64,"))
        #expect(Data(base64Encoded: String(url.dropFirst(22))).map { [UInt8]($0) } == Self.image, "the image changed on the way")
        #expect((body["tools"] as? [[String: Any]])?.count == 1)
        #expect(body["temperature"] == nil, "no temperature was sent, none may be invented")
        #expect(body["max_tokens"] as? Int == 16)
        #expect(body["top_p"] as? Double == 0.9 && body["top_k"] as? Int == 40 && body["min_p"] as? Double == 0.05)
        #expect(body["seed"] as? Int == 7 && body["stop"] as? [String] == ["END"])
        #expect(body["repeat_penalty"] as? Double == 1.1)
        #expect(body["presence_penalty"] as? Double == 0.5 && body["frequency_penalty"] as? Double == 0.25)
        #expect((body["response_format"] as? [String: Any])?["type"] as? String == "json_object")
        if client == "openai" {
            #expect(body["tool_choice"] as? String == "auto")
            #expect(body["logprobs"] as? Bool == true && body["top_logprobs"] as? Int == 2)
            #expect(body["mirostat"] as? Int == 2, "an unknown key is carried as sent")
        }
    }
}
