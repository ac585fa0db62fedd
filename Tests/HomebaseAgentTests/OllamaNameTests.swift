@testable import HomebaseAgent
import Inference
import Testing

/// Ollama's model names (docs/api.md "Model names"): a name without a tag is `NAME:latest`; the
/// tag is after a colon in the last path piece only (a registry host may carry a port).
@Suite struct OllamaNameTests {
    func runtime(_ kind: RuntimeKind) -> ManagedRuntime {
        ManagedRuntime(url: "http://127.0.0.1:11434", kind: kind, folder: nil, hubURL: "", timeouts: HTTPTimeouts())
    }

    @Test func aNameWithoutATagIsLatest() {
        let o = runtime(.ollama)
        #expect(o.canonical("llama3.2") == "llama3.2:latest")
        #expect(o.canonical("llama3.2:1b") == "llama3.2:1b")
        #expect(o.canonical("mattw/pygmalion") == "mattw/pygmalion:latest")
        #expect(o.canonical("registry.local:5000/ns/model") == "registry.local:5000/ns/model:latest")
        #expect(o.canonical("registry.local:5000/ns/model:q4") == "registry.local:5000/ns/model:q4")
    }

    @Test func otherRuntimesKeepTheNameAsGiven() {
        #expect(runtime(.llamaServer).canonical("owner/repo/file.gguf") == "owner/repo/file.gguf")
        #expect(runtime(.llamaServer).canonical("seed") == "seed")
    }
}
