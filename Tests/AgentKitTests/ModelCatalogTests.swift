import AgentKit
import Foundation
import Testing

@Suite struct ModelCatalogTests {
    @Test func theBundledCatalogLoadsWithTheTinyModelAndFourRealOnes() throws {
        let catalog = ModelCatalog.bundled
        let tiny = try #require(catalog.spec(id: "tiny-random-llama"))
        #expect(tiny.runtime == .gguf && tiny.toolFamily == .hermes)
        #expect(!tiny.downloadable && tiny.sizeBytes == 473_344)
        let real = catalog.models.filter(\.downloadable)
        #expect(real.count == 4)
        for spec in real {
            #expect(spec.repo.split(separator: "/").count == 2, "\(spec.id)")
            #expect(spec.file.hasSuffix(".gguf") && spec.runtime == .gguf, "\(spec.id)")
            #expect(spec.contextUsable <= spec.contextNominal && spec.minRAMBytes > spec.sizeBytes, "\(spec.id)")
        }
        #expect(catalog.spec(id: "qwen3-0.6b-q8_0")?.chatTemplateArguments == ["enable_thinking": .bool(false)])
    }

    private func json(_ models: String) -> Data { Data(#"{"models": [\#(models)]}"#.utf8) }

    private func model(id: String, nominal: Int = 4096, usable: Int = 2048, downloadable: Bool = true) -> String {
        #"{"id": "\#(id)", "name": "n", "repo": "o/r", "file": "f.gguf", "runtime": "gguf", "toolFamily": "llama3", "#
            + #""parameters": "1B", "sizeBytes": 10, "sizeSource": "estimate", "sizeLabel": "10 B", "#
            + #""contextNominal": \#(nominal), "contextUsable": \#(usable), "minRAMBytes": 20, "gated": false, "#
            + #""downloadable": \#(downloadable), "revision": "main", "chatTemplateArguments": {"k": 1}, "notes": """#
            + "}"
    }

    @Test func aValidCatalogDecodes() throws {
        let catalog = try ModelCatalog(json: json(model(id: "a") + "," + model(id: "b")))
        #expect(catalog.models.map(\.id) == ["a", "b"])
        #expect(catalog.models[0].chatTemplateArguments == ["k": .int(1)])
    }

    @Test func invalidCatalogsAreRefused() {
        #expect(throws: AgentError.catalogInvalid("empty or duplicate id 'a'")) {
            try ModelCatalog(json: json(model(id: "a") + "," + model(id: "a")))
        }
        #expect(throws: AgentError.self) { try ModelCatalog(json: json(model(id: "a", usable: 8192))) }
        #expect(throws: AgentError.self) { try ModelCatalog(json: Data("{\"models\": 3}".utf8)) }
    }
}
