@testable import GuestAgent
import Testing
import Wire

/// What `/api/show` says a listed model can do, as Ollama names it: an embedding-only model
/// says only "embedding" (Open WebUI and Continue pick embedding models by it).
@Suite struct ServableModelsTests {
    static func advertised(_ caps: AppMessage.Capabilities) -> ServableModels.Entry {
        ServableModels.Entry(name: "m", brain: .ownHomebase,
                             info: AppMessage.ModelInfo(tag: "m", family: "bert", parameterSize: "", quantization: "",
                                                        contextLength: 512, capabilities: caps))
    }

    @Test func capabilitiesFromTheAdvertsBits() {
        #expect(Self.advertised([.embedding]).capabilityNames == ["embedding"])
        #expect(Self.advertised([.completion, .embedding]).capabilityNames == ["completion", "embedding"])
        #expect(Self.advertised([.completion, .tools, .vision]).capabilityNames == ["completion", "tools", "vision"])
        #expect(Self.advertised([]).capabilityNames == ["completion"], "a runtime that says nothing can still chat")
    }

    @Test func joinedOnDeviceAndUnknown() {
        #expect(ServableModels.Entry(name: "e", brain: .joinedHomebase, capabilities: [.embedding]).capabilityNames == ["embedding"])
        #expect(ServableModels.Entry(name: "x", brain: .joinedHomebase).capabilityNames == ["completion"])
        #expect(ServableModels.Entry(name: "tiny", brain: .onDevice).capabilityNames == ["completion", "tools", "embedding"],
                "the on-device model answers tools and makes embeddings (a second llama-server, LocalEmbeddings)")
    }
}
