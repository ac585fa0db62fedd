import Foundation
import Testing
@testable import LocalAPI

/// OpenAI's `stream_options.include_obfuscation` asks for random padding fields on every chunk
/// (a defence against size side channels on the network). Loopback needs none: `guest serve`
/// accepts the option, ignores it, and a chunk never carries a padding field (the relay-side
/// defence is `reply-shaping`, docs/SIDE-CHANNEL.md).
@Suite struct ObfuscationOptionTests {
    @Test func includeObfuscationIsAcceptedAndNoPaddingFieldReachesTheClient() async throws {
        let h = try ServeHarness(brain: FakeBrain(brain: .ownHomebase, events: FakeBrain.hello))
        defer { h.stop() }
        let o = try await runClient("openai_client.py", [h.base + "/v1", "unused", "obfuscation"])
        #expect(o["content"] as? String == "Hello, Zürich ☀️")
        // Only our own documented extra (the brain); never `obfuscation` or any other.
        #expect(o["extras"] as? [String] == ["homebase"])
    }
}
