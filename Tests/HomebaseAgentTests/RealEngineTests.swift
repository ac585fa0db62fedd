import Courier
import EngineFixture
import Foundation
import Inference
import Signing
import Testing
import Wire
@testable import HomebaseAgent

/// Against the real llama-server on the tiny model, through an in-process relay.
@Suite(.realEngine, .serialized) struct RealEngineTests {
    @Test func runtimeAddStoresAVerifiedEngine() async throws {
        let engine = try RealEngine.get()
        let files = HostFiles(dataDir: try temporaryDirectory("host"))
        _ = try files.initialize(name: "workstation", nowMs: nowMs())
        let store = try files.openStore()
        defer { store.close() }
        let report = try await RuntimeVerifier(store: store).add(url: engine.url)
        #expect(report.kind == .llamaServer)
        let stored = try store.runtimes()
        #expect(stored.count == 1)
        #expect(stored.first?.available == true)
        #expect(stored.first?.models.map(\.tag) == ["tiny"])
        let catalog = ModelCatalog(runtimes: stored)
        #expect(catalog.models.first?.contextLength == 2048)
        #expect(catalog.models.first?.capabilities.contains(.completion) == true)
        // What the advert says is what `/props` said (#23): the template renders tools, no
        // projector is loaded (no vision), it is no embedding model.
        #expect(catalog.models.first?.capabilities == [.completion, .tools])
    }

    @Test func withNoRuntimeTheDefaultAddressIsProbedAndStored() async throws {
        let engine = try RealEngine.get()
        try await HostFixture.with(runtime: nil, configure: { c in
            c.defaultRuntimeURL = engine.url
            c.verifyOnStart = true
        }) { f in
            var it = f.guest.courier.deliveries.makeAsyncIterator()
            var advert: AppMessage.Advert?
            while let d = await it.next() {
                d.ack()
                if case .advert(let a) = d.message, !a.models.isEmpty { advert = a; break }
            }
            #expect(advert?.models.map(\.tag) == ["tiny"])
            let store = try f.files.openStore()
            defer { store.close() }
            #expect(try store.runtimes().map(\.url) == [engine.url])
            let (_, a) = await f.guest.ask(request("tiny", maxTokens: 4), to: f.host)
            #expect(a.done?.completionTokens == 4)
        }
    }

    @Test func aRequestIsAnsweredByTheRealEngine() async throws {
        let engine = try RealEngine.get()
        try await HostFixture.with(runtime: (engine.url, ["tiny"])) { f in
            let (outcome, a) = await f.guest.ask(request("tiny", maxTokens: 24), to: f.host)
            #expect(outcome == .sent)
            #expect(a.accepted && a.acceptBeforeText)
            #expect(!a.text.isEmpty)
            #expect(a.finalChunk)
            #expect(a.failures.isEmpty)
            #expect(a.done?.completionTokens == 24)  // the tiny model never stops early
            #expect(a.done?.finishReason == "length")
            // Coalescing: fewer chunks than tokens (first at once, then batched), plus the final one.
            #expect(a.chunks <= 25)
        }
    }

    @Test func advertsAreSignedAndTheirSequenceSurvivesARestart() async throws {
        let engine = try RealEngine.get()
        let relay = try RelayFixture()
        defer { relay.stop() }
        let files = HostFiles(dataDir: try temporaryDirectory("host"))
        _ = try files.initialize(name: "workstation", nowMs: nowMs())
        let hostRecord = try files.loadIdentity().record
        let guest = try GuestSide(relayURL: relay.url, host: hostRecord)
        let store = try files.openStore()
        try store.addDevice(guest.identity.record, accountKey: try files.loadAccountKey(), nowMs: nowMs())
        try await RuntimeVerifier(store: store).add(url: engine.url)
        store.close()
        try await guest.start()
        defer { guest.stop() }
        var deliveries = guest.courier.deliveries.makeAsyncIterator()

        func runOnce() async throws -> (AppMessage.Advert, AppMessage.Roster?) {
            var c = try HomebaseAgent.Configuration(relayURL: relay.url)
            c.reloadInterval = .milliseconds(50)
            c.backoffForTests()
            let agent = try HomebaseAgent(configuration: c, files: files)
            agent.start()
            var advert: AppMessage.Advert?, roster: AppMessage.Roster?
            while advert == nil, let d = await deliveries.next() {
                if case .advert(let a) = d.message { advert = a }
                if case .roster(let r) = d.message { roster = r }
                d.ack()
            }
            await agent.stop()
            return (try #require(advert), roster)
        }
        let (first, roster) = try await runOnce()
        // Verified as a second identity would: the host key over signedBytes().
        let hostKey = first.hostKey
        #expect(hostKey == hostRecord.signingKey)
        #expect(hostKey.isValidSignature(first.signature.bytes, for: try first.signedBytes()))
        #expect(first.models.map(\.tag) == ["tiny"])
        var forged = first
        forged.sequence += 1
        #expect(!forged.verifies())
        if let roster {
            #expect(roster.verifies())
            #expect(roster.deviceRecords.count == 2)
        }
        let (second, _) = try await runOnce()
        #expect(second.sequence > first.sequence)
        #expect(second.verifies())
    }
}

extension HomebaseAgent.Configuration {
    mutating func backoffForTests() {
        link.backoff = .init(initial: .milliseconds(20), maximum: .milliseconds(200))
    }
}
