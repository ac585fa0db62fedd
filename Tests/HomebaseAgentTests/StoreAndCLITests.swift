import Foundation
import Inference
import Sealing
import Signing
import Testing
import Wire
@testable import HomebaseAgent
@testable import homebase

/// Identity, roster, runtimes (test before persist), the CLI's exit codes.
@Suite(.serialized) struct StoreAndCLITests {
    func initialized() throws -> HostFiles {
        let files = HostFiles(dataDir: try temporaryDirectory("host") + "/nested/host")
        _ = try files.initialize(name: "workstation", nowMs: nowMs())
        return files
    }

    @Test func initCreatesAnAccountWithASignedRosterAndNeverOverwrites() throws {
        let files = try initialized()
        let store = try files.openStore()
        defer { store.close() }
        let roster = try #require(try store.roster())
        #expect(roster.version == 1)
        #expect(roster.verifies())
        #expect(roster.accountKey.bytes == (try files.loadAccountKey()).publicKey.bytes)
        #expect(try roster.deviceRecords.map { try DeviceRecord(encoded: $0) } == [try files.loadIdentity().record])
        #expect(throws: HomebaseError.alreadyInitialized(dataDir: files.dataDir)) {
            try files.initialize(name: "again", nowMs: nowMs())
        }
        var info = stat()
        #expect(stat(files.accountKeyPath, &info) == 0 && info.st_mode & 0o077 == 0)
    }

    @Test func devicesAddBumpsAndResignsRemoveToo() throws {
        let files = try initialized()
        let laptop = try DeviceIdentity.generate(name: "laptop", now: 1)
        let store = try files.openStore()
        defer { store.close() }
        let account = try files.loadAccountKey()
        let added = try store.addDevice(laptop.record, accountKey: account, nowMs: nowMs())
        #expect(added.version == 2 && added.verifies() && added.deviceRecords.count == 2)
        #expect(try store.addDevice(laptop.record, accountKey: account, nowMs: nowMs()).version == 2)  // no change
        let removed = try store.removeDevice(laptop.record.signingKey, host: try files.loadIdentity().signingKey.publicKey,
                                             accountKey: account)
        #expect(removed.version == 3 && removed.verifies() && removed.deviceRecords.count == 1)
        #expect(throws: HomebaseError.selfDevice) {
            try store.removeDevice(try files.loadIdentity().signingKey.publicKey, host: try files.loadIdentity().signingKey.publicKey,
                                   accountKey: account)
        }
    }

    @Test func cliAddsAVerifiedRecordAndRefusesATamperedOne() async throws {
        let files = try initialized()
        let laptop = try DeviceIdentity.generate(name: "laptop", now: 1)
        let recordHex = hex(laptop.record.encoded)
        let env = ["HOME": "/nonexistent"]
        #expect(await HomebaseCLI.main(["homebase", "--data-dir", files.dataDir, "devices", "add", recordHex], environment: env) == 0)
        var tampered = laptop.record.encoded
        tampered[tampered.count - 1] ^= 1
        #expect(await HomebaseCLI.main(["homebase", "--data-dir", files.dataDir, "devices", "add", hex(tampered)], environment: env) == 1)
        let store = try files.openStore()
        #expect(try store.devices().count == 2)
        #expect(try store.roster()?.version == 2)
        store.close()
        #expect(await HomebaseCLI.main(["homebase", "--data-dir", files.dataDir, "status", "--json"], environment: env) == 0)
        #expect(await HomebaseCLI.main(["homebase", "--data-dir", files.dataDir, "status", "--bogus"], environment: env) == 2)
        #expect(await HomebaseCLI.main(["homebase", "--frobnicate"], environment: env) == 2)
        #expect(await HomebaseCLI.main(["homebase", "devices", "--help"], environment: env) == 0)
        #expect(await HomebaseCLI.main(["homebase", "--data-dir", files.dataDir + "-none", "status"], environment: env) == 1)
        #expect(await HomebaseCLI.main(["homebase", "--data-dir", files.dataDir, "run"], environment: env) == 1)  // no relay
    }

    @Test func advertSequenceOnlyGrows() throws {
        let files = try initialized()
        let store = try files.openStore()
        defer { store.close() }
        let a = try store.nextAdvertSequence(nowMs: 1000, modelCount: 1)
        let b = try store.nextAdvertSequence(nowMs: 10, modelCount: 1)  // the clock went back
        #expect(b > a)
    }

    // MARK: runtimes: only a runtime that passed every step is stored

    func refused(_ url: String) async throws -> String {
        let files = try initialized()
        let store = try files.openStore()
        defer { store.close() }
        var v = RuntimeVerifier(store: store)
        v.timeouts = HTTPTimeouts(connect: .seconds(2), firstByte: .seconds(5), idle: .seconds(5))
        do {
            try await v.add(url: url)
            Issue.record("\(url) was stored")
            return ""
        } catch let HomebaseError.runtimeRefused(message) {
            #expect(try store.runtimes().isEmpty)
            return message
        }
    }

    @Test func aDeadURLIsRefused() async throws {
        let message = try await refused("http://127.0.0.1:\(try freePort())")
        #expect(message.hasPrefix("connect"))
    }

    @Test func aServerThatIsNoEngineIsRefused() async throws {
        let message = try await refused(try ScriptedEngine.url("not_an_engine"))
        #expect(message.hasPrefix("identify"))
    }

    @Test func anEngineWithNoModelsIsRefused() async throws {
        let message = try await refused(try ScriptedEngine.url("ollama_empty"))
        #expect(message.contains("no-models"))
    }

    @Test func aFailedReverificationKeepsTheRuntimeUnavailable() async throws {
        let files = try initialized()
        let store = try files.openStore()
        defer { store.close() }
        let url = "http://127.0.0.1:\(try freePort())"
        try store.save(StoredRuntime(url: url, kind: .ollama, version: nil, available: true,
                                     models: [RuntimeModel(tag: "m", capabilities: [.completion])],
                                     addedMs: 1, verifiedMs: 1, checkedMs: 1, lastError: nil))
        var v = RuntimeVerifier(store: store)
        v.timeouts = HTTPTimeouts(connect: .seconds(2), firstByte: .seconds(5), idle: .seconds(5))
        #expect(try await v.reverifyAll())  // availability changed
        let after = try store.runtimes()
        #expect(after.count == 1)
        #expect(after.first?.available == false)
        #expect(after.first?.models.map(\.tag) == ["m"])
        #expect(after.first?.lastError != nil)
        #expect(ModelCatalog(runtimes: after).models.isEmpty)  // adverts show nothing unavailable
    }
}
