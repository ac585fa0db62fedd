import Foundation
import Testing
@testable import ModelStore
@testable import guest

/// The `guest models ...` layer end to end against the stand-in hub.
@Suite(.serialized) struct ModelCommandsTests {
    func commands(_ hub: StandInHub, _ dir: TempDir) throws -> ModelCommands {
        let catalog = Catalog(config: Catalog.Config(hub: hub.hubConfig(), cacheDirectory: dir.path, machineMemory: 16 << 30))
        let tiny = ShortlistItem(name: "tiny", repo: tinyRepo, quant: "F32", summary: "the test model")
        return ModelCommands(catalog: catalog, store: try makeStore(hub, dir, defaultSelection: nil), shortlist: [tiny])
    }

    @Test func browseSearchPullListUseDelete() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        let cmd = try commands(hub, dir)

        let browse = try await cmd.browse()
        #expect(browse.entries.count == 6)
        #expect(browse.text.contains("Qwen\n  Qwen 2.5\n"))
        #expect(browse.text.contains("    3B Vision  hbtest/Qwen2.5-VL-3B-Instruct-GGUF  [vision, tools]\n      Q4_K_M  3.3 GB, needs 4.8 GB RAM\n"))
        #expect(browse.text.contains("  tiny  the test model\n"))
        #expect(browse.text.contains("      Q4_K_M  ~2.5 GB (estimate), needs 3.8 GB RAM\n"))
        #expect(try await cmd.browse(all: true).entries.count == 8)

        let found = try await cmd.search("qwen omni")
        #expect(found.entries.map(\.repo) == ["hbother/Qwen2.5-Omni-7B-Instruct-GGUF"])
        #expect(try await cmd.search("nothing-like-this").text == "no model matches \"nothing-like-this\"\n")

        let pulled = try await cmd.pull("tiny")
        #expect(pulled.models.first?.state == .ready && pulled.text == "\(tinyID): ready\n")
        #expect(try cmd.use(tinyID).text == "using \(tinyID)\n")
        #expect(try cmd.list().text == "* \(tinyID)  ready  473 KB\n")
        #expect(try await cmd.delete(tinyID).text == "deleted \(tinyID); selected: built-in\n")
        #expect(try cmd.list().text == "no models yet: guest models browse\n")
    }

    /// A first run without network (no catalog on file, the hub refused): browse still shows the
    /// shortlist that ships with guest, marked offline, instead of only an error.
    @Test func browseOfflineOnAFirstRunShowsTheShippedShortlist() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        let config = HubConfig(baseURL: "http://127.0.0.1:\(refusedPort())", organisations: ["hbtest"])
        let catalog = Catalog(config: Catalog.Config(hub: config, cacheDirectory: dir.path, machineMemory: nil))
        let tiny = ShortlistItem(name: "tiny", repo: tinyRepo, quant: "F32", summary: "the test model")
        let cmd = ModelCommands(catalog: catalog, store: try makeStore(hub, dir, defaultSelection: nil), shortlist: [tiny])
        let browse = try await cmd.browse()
        #expect(browse.entries.isEmpty)
        #expect(browse.text.hasPrefix("(offline: no catalog on file"), "\(browse.text)")
        #expect(browse.text.contains("Shortlist (offline: shipped with guest; guest models pull NAME needs the network):\n  tiny  the test model\n"),
                "\(browse.text)")
    }

    @Test func addRepoThenPullByIDAndQuant() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        let cmd = try commands(hub, dir)
        #expect(try cmd.addRepo(tinyRepo).text == "added \(tinyRepo) (provisional until it loads)\n")
        #expect(try cmd.addRepo(tinyRepo).text == "\(tinyRepo) is already added\n")
        #expect(try await cmd.browse().text.contains("  \(tinyRepo)  (provisional)\n"))
        #expect(throws: ModelStoreError.invalidRepoID("bad id")) { try cmd.addRepo("bad id") }
        let missing = await storeError { _ = try await cmd.pull("\(tinyRepo):Q4_K_M") }
        #expect(missing == .repoUnusable(repo: tinyRepo, detail: "no Q4_K_M GGUF file"))
        _ = try await cmd.pull("\(tinyRepo):f32")
        #expect(try await !cmd.browse().text.contains("(provisional)"))
        #expect(try await cmd.cancel(tinyID).text == "\(tinyID): cancelled\n")
        #expect(try cmd.list().models.first?.state == .ready)  // nothing was downloading: cancel is a no-op
    }
}
