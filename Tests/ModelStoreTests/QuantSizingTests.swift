import Testing
@testable import ModelStore

@Suite struct QuantSizingTests {
    @Test func quantFromFileNames() {
        #expect(Quant.parse(fileName: "Qwen2.5-1.5B-Instruct-Q4_K_M.gguf")?.name == "Q4_K_M")
        #expect(Quant.parse(fileName: "qwen2.5-coder-1.5b-instruct-q8_0.gguf")?.name == "Q8_0")
        #expect(Quant.parse(fileName: "BF16/model-BF16-00001-of-00002.gguf")?.name == "BF16")
        #expect(Quant.parse(fileName: "gemma-3-4b-it-UD-Q4_K_XL.gguf")?.name == "Q4_K_XL")
        #expect(Quant.parse(fileName: "Llama-3.2-1B-Instruct-IQ3_XXS.gguf")?.name == "IQ3_XXS")
        #expect(Quant.parse(fileName: "model.f16.gguf")?.name == "F16")
        #expect(Quant.parse(fileName: "model.gguf") == nil)
    }

    @Test func tiersSortByBits() {
        let names = ["BF16", "Q8_0", "Q5_K_M", "Q4_K_M", "F16", "IQ2_M", "Q6_K", "Q4_0"]
        let sorted = names.compactMap(Quant.init).sorted().map(\.name)
        #expect(sorted == ["IQ2_M", "Q4_0", "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0", "BF16", "F16"])
    }

    @Test func exactSizesSumShardsAndAddProjector() {
        let files: [(path: String, size: Int64?)] = [
            ("Q8_0/m-Q8_0-00002-of-00003.gguf", 200), ("Q8_0/m-Q8_0-00001-of-00003.gguf", 100),
            ("Q8_0/m-Q8_0-00003-of-00003.gguf", 50), ("m-Q4_K_M.gguf", 70), ("mmproj-m-f16.gguf", 9),
            ("mmproj-m-Q8_0.gguf", 5), ("README.md", 1000),
        ]
        let tiers = Sizing.tiers(files: files, parameters: nil)
        #expect(tiers.map(\.quant.name) == ["Q4_K_M", "Q8_0"])
        #expect(tiers[0].bytes == 79 && tiers[0].exact)
        #expect(tiers[1].bytes == 359 && tiers[1].exact)
        #expect(tiers[1].files.first == "Q8_0/m-Q8_0-00001-of-00003.gguf" && tiers[1].files.count == 3)
        #expect(tiers[1].projector == "mmproj-m-f16.gguf")
    }

    @Test func incompleteShardSetIsDropped() {
        let files: [(path: String, size: Int64?)] = [("m-Q2_K-00001-of-00002.gguf", 10), ("m-Q4_0.gguf", 5)]
        #expect(Sizing.tiers(files: files, parameters: nil).map(\.quant.name) == ["Q4_0"])
    }

    @Test func estimateFromParametersWhenNoSizes() {
        let tiers = Sizing.tiers(files: [("m-Q4_K_M.gguf", nil), ("m-Q8_0.gguf", nil)], parameters: 8.03e9)
        #expect(tiers.allSatisfy { !$0.exact })
        // llama.cpp's table: Q4_K_M of Llama-3-8B is 4.58 GiB, Q8_0 7.96 GiB.
        let gib = Double(1 << 30)
        #expect(abs(Double(tiers[0].bytes!) / gib - 4.58) < 0.05)
        #expect(abs(Double(tiers[1].bytes!) / gib - 7.96) < 0.05)
        #expect(Sizing.tiers(files: [("m-Q4_K_M.gguf", nil)], parameters: nil)[0].bytes == nil)
    }

    @Test func ramRecommendation() {
        let tier = QuantTier(quant: Quant("Q4_K_M")!, files: ["a"], projector: nil, bytes: 1_000_000_000, exact: true)
        // 1e9 * 1.2 + 512 MiB = 1.737e9, rounded up to half a GiB = 2 GiB.
        #expect(tier.recommendedRAM == 2 << 30)
        #expect(QuantTier(quant: Quant("Q4_0")!, files: [], projector: nil, bytes: nil, exact: false).recommendedRAM == nil)
    }
}
