import Foundation
import Testing
@testable import ModelStore

/// The catalog against the stand-in hub: real HTTP on loopback, realistic JSON and its quirks.
@Suite(.serialized) struct FunnelTests {
    static let sixteenGiB: Int64 = 16 << 30

    func catalog(_ hub: StandInHub, _ dir: TempDir, baseURL: String? = nil) -> Catalog {
        var config = hub.hubConfig()
        if let baseURL { config.baseURL = baseURL }
        return Catalog(config: Catalog.Config(hub: config, cacheDirectory: dir.path, machineMemory: Self.sixteenGiB))
    }

    @Test func funnelKeepsOnlyWhatLoadsDrivesSeesAndFits() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        let result = try await catalog(hub, dir).entries()
        #expect(Set(result.entries.map(\.repo)) == [
            "hbtest/Qwen2.5-VL-3B-Instruct-GGUF", "hbtest/gemma-3-4b-it-GGUF", "hbtest/SmolVLM-256M-Instruct-GGUF",
            "hbother/MiniCPM-V-2_6-8B-Instruct-GGUF", "hbother/Qwen2.5-Omni-7B-Instruct-GGUF",
            "hbother/Phi-3.5-Vision-4B-Instruct-GGUF",
        ])
        var expected = FunnelReport()
        (expected.listed, expected.duplicates, expected.architecture, expected.unparsed) = (15, 1, 2, 1)
        (expected.notToolCapable, expected.notVisionCapable, expected.noLoadableFile, expected.tooBig, expected.shown) = (1, 2, 0, 2, 6)
        #expect(result.report == expected)
        #expect(!result.stale)

        let qwen = try #require(result.entries.first { $0.repo.contains("Qwen2.5-VL") })
        #expect(qwen.name.series == "Qwen 2.5" && qwen.name.size == "3B Vision")
        #expect(qwen.tiers.map(\.quant.name) == ["Q4_K_M", "Q8_0", "F16"])
        #expect(qwen.tiers[0].bytes == 1_930_000_000 + 1_340_000_000 && qwen.tiers[0].exact)  // F16 projector added
        let smol = try #require(result.entries.first { $0.repo.contains("SmolVLM") })
        #expect(smol.tiers.count == 1 && smol.tiers[0].bytes == 300_000 + 300_000 + 123_457 + 200_001)
        #expect(smol.tiers[0].files.count == 3)
        // Missing architecture and empty gguf config: kept, benefit of the doubt.
        let minicpm = try #require(result.entries.first { $0.repo.contains("MiniCPM") })
        #expect(minicpm.architecture == nil)
        // No tree (the hub failed): estimated from the gguf parameter count, marked as such.
        let phi = try #require(result.entries.first { $0.repo.contains("Phi-3.5") })
        #expect(phi.tiers.count == 1 && !phi.tiers[0].exact)
        #expect(phi.tiers[0].bytes == Int64(4.15e9 * 0.612))
    }

    @Test func textOnlyFlagAddsToolModelsWithoutVision() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        let result = try await catalog(hub, dir).entries(includeTextOnly: true)
        #expect(result.report.shown == 8 && result.report.notVisionCapable == 0)
        #expect(result.entries.contains { $0.repo == "hbtest/Qwen2.5-Coder-1.5B-Instruct-GGUF" && !$0.visionCapable })
        #expect(!result.entries.contains { $0.repo == "hbtest/Mistral-7B-v0.3-GGUF" })  // no tools: never shown
    }

    @Test func followsPaginationForEveryOrganisation() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        _ = try await catalog(hub, dir).entries()
        let listings = try await hub.log().filter { $0.path.hasPrefix("/api/models?") }
        for org in ["hbtest", "hbother"] {
            let pages = listings.filter { $0.path.contains("author=\(org)") }
            #expect(pages.count == 3, "\(org): \(pages.map(\.path))")
            #expect(pages.contains { $0.path.contains("cursor=6") })
        }
        #expect(listings.allSatisfy { $0.path.contains("expand") || $0.path.contains("cursor=") })
    }

    @Test func cacheServesInstantlyAndOfflineThenRefreshes() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { dir.cleanup() }
        let first = try await catalog(hub, dir).entries()
        let requests = try await hub.log().count
        let second = try await catalog(hub, dir).entries()
        #expect(try await hub.log().count == requests)  // no request at all
        #expect(second.entries == first.entries)
        _ = try await catalog(hub, dir).entries(refresh: true)
        #expect(try await hub.log().count > requests)
        hub.stop()

        let offline = "http://127.0.0.1:\(refusedPort())"
        let cached = try await catalog(hub, dir, baseURL: offline).entries(includeTextOnly: true)
        #expect(cached.report.shown == 8 && !cached.stale)
        let old = try await catalog(hub, dir, baseURL: offline).entries(now: Date().addingTimeInterval(8 * 86400))
        #expect(old.stale && old.entries == first.entries)
    }

    @Test func offlineWithoutCacheFailsWithTheOfflineError() async throws {
        let dir = try TempDir("homebase-models")
        defer { dir.cleanup() }
        let config = HubConfig(baseURL: "http://127.0.0.1:\(refusedPort())", organisations: ["a", "b"])
        let catalog = Catalog(config: Catalog.Config(hub: config, cacheDirectory: dir.path, machineMemory: nil))
        let error = await storeError { _ = try await catalog.entries() }
        guard case .offline? = error else {
            Issue.record("expected offline, got \(String(describing: error))")
            return
        }
    }

    @Test func customRepoThatDoesNotExistFailsClearly() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        let error = await storeError { _ = try await catalog(hub, dir).entry(repo: "hbtest/No-Such-7B-GGUF") }
        #expect(error == .repoUnusable(repo: "hbtest/No-Such-7B-GGUF", detail: "not found on the hub (HTTP 404)"))
        let entry = try await catalog(hub, dir).entry(repo: "hbtest/Mistral-7B-v0.3-GGUF")  // gate bypassed
        #expect(entry.provisional && entry.tiers.map(\.quant.name) == ["Q4_K_M"])
    }
}
