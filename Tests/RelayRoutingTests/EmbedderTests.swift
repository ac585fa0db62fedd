import Courier
@testable import RelayRouting
import Testing
import Wire

/// `HomebaseEmbedder` on the real relay against the scripted Homebase (which never answers an
/// embed-request): not connected is an error at once, silence is the configured timeout, and
/// neither is ever vectors.
@Suite("embeddings through the relay")
struct EmbedderTests {
    @Test(arguments: ProviderPath.allCases) func aHostNotConnectedIsAnErrorAtOnce(via path: ProviderPath) async throws {
        let scene = try await Scene([.neverAccept], hostOnline: false, via: path)
        defer { scene.stop() }
        let embedder = HomebaseEmbedder(hostKey: scene.host.record.signingKey, courier: scene.guest, timeout: .seconds(3600))
        let result = await embedder.embed(model: "e5", inputs: ["one"])
        guard case .failure(.unreachable(let why)) = result else { Issue.record("\(result)"); return }
        #expect(why.contains("not connected"))
    }

    @Test(arguments: ProviderPath.allCases) func aRequestThatCannotBeSealedIsALocalFailureAndNothingIsSent(via path: ProviderPath) async throws {
        let scene = try await Scene([.neverAccept], via: path)
        defer { scene.stop() }
        let embedder = HomebaseEmbedder(hostKey: scene.host.record.signingKey, courier: scene.guest, timeout: .seconds(3600))
        // A model name over its u16 length prefix: the encoder refuses it before the link sees it.
        let result = await embedder.embed(model: String(repeating: "m", count: 70_000), inputs: ["one"])
        guard case .failure(.notSealed(let why)) = result else { Issue.record("\(result)"); return }
        #expect(why.contains("model"), "\(why)")
        #expect(scene.host.seen.isEmpty)
    }

    @Test(arguments: ProviderPath.allCases) func silenceIsTheConfiguredTimeoutAndTheRequestArrivedWhole(via path: ProviderPath) async throws {
        let scene = try await Scene([.neverAccept], via: path)
        defer { scene.stop() }
        let embedder = HomebaseEmbedder(hostKey: scene.host.record.signingKey, courier: scene.guest, timeout: .milliseconds(300))
        // Large enough to travel as parts (each input 40 KiB).
        let inputs = (0..<4).map { String(repeating: Character(String($0)), count: 40 << 10) }
        let result = await embedder.embed(model: "e5", inputs: inputs)
        #expect(result == .failure(.timeout(.milliseconds(300), flag: "--embedding-timeout")), "\(result)")
        try await eventually("the embed-request at the host") {
            scene.host.seen.contains { if case .embedRequest(let r) = $0 { r.model == "e5" && r.inputs == inputs } else { false } }
        }
    }
}
