import Courier
import Foundation
import Inference
import Sealing
import Signing
import Testing
import Wire
@testable import HomebaseAgent

/// Roster and adverts as mail through the relay.
@Suite(.serialized) struct PublishTests {
    /// The next delivery matching `pick`, acking everything read.
    func next<T>(_ it: inout AsyncStream<Delivery>.Iterator, _ pick: (AppMessage) -> T?) async throws -> T {
        while let d = await it.next() {
            d.ack()
            if let v = pick(d.message) { return v }
        }
        throw TestSetupError("deliveries ended")
    }

    func setModels(_ f: HostFixture, url: String, _ models: [String]) throws {
        let store = try f.files.openStore()
        defer { store.close() }
        try store.save(StoredRuntime(url: url, kind: .llamaServer, version: nil, available: true,
                                     models: models.map { RuntimeModel(tag: $0, capabilities: [.completion, .tools]) },
                                     addedMs: 1, verifiedMs: 1, checkedMs: 1, lastError: nil))
    }

    @Test func theRosterTravelsOnStartAndOnChange() async throws {
        try await HostFixture.with(runtime: nil) { f in
            var it = f.guest.courier.deliveries.makeAsyncIterator()
            let first = try await next(&it) { if case .roster(let r) = $0 { r } else { nil } }
            #expect(first.version == 2 && first.verifies())
            #expect(first.accountKey.bytes == (try f.files.loadAccountKey()).publicKey.bytes)
            let phone = try DeviceIdentity.generate(name: "phone", now: 1)
            let store = try f.files.openStore()
            try store.addDevice(phone.record, accountKey: try f.files.loadAccountKey(), nowMs: nowMs())
            store.close()
            let second = try await next(&it) { if case .roster(let r) = $0 { r } else { nil } }
            #expect(second.version == 3 && second.verifies())
            #expect(try second.deviceRecords.map { try DeviceRecord(encoded: $0).name }.contains("phone"))
        }
    }

    @Test func aModelChangeIsAdvertisedAtOnce() async throws {
        let url = try ScriptedEngine.url("ok")
        try await HostFixture.with(runtime: (url, ["a"])) { f in
            var it = f.guest.courier.deliveries.makeAsyncIterator()
            let first = try await next(&it) { if case .advert(let a) = $0 { a } else { nil } }
            #expect(first.models.map(\.tag) == ["a"] && first.verifies())
            #expect(first.models.first?.capabilities == [.completion])
            try setModels(f, url: url, ["a", "b"])
            let second = try await next(&it) { if case .advert(let a) = $0 { a } else { nil } }
            #expect(second.models.map(\.tag) == ["a", "b"])
            #expect(second.models.last?.capabilities == [.completion, .tools])
            #expect(second.sequence > first.sequence && second.verifies())
            // Unavailable: the advert lists nothing (the runtime stays configured).
            let store = try f.files.openStore()
            try store.markUnavailable(url: url, reason: "test", nowMs: nowMs())
            store.close()
            let third = try await next(&it) { if case .advert(let a) = $0 { a } else { nil } }
            #expect(third.models.isEmpty && third.sequence > second.sequence)
        }
    }

    @Test func granteesGetAdvertsOnEventsNotOnThePulse() async throws {
        let url = try ScriptedEngine.url("ok")
        try await HostFixture.with(runtime: (url, ["a", "secret"]), sibling: false,
                                   configure: { $0.advertPulse = .milliseconds(20) },
                                   prepare: { f in
            try f.files.openStore().saveGrant(GrantRecord(grantID: .random(), grantee: f.guest.identity.record,
                                                          models: ["a", "b"], createdMs: nowMs()))
        }) { f in
            // Many pulses pass; a grantee hears at most the advert of its connection event.
            try await Task.sleep(for: .milliseconds(400))
            #expect(f.guest.courier.stats.opened <= 1)  // ~20 pulses went by: none reached the grantee
            var it = f.guest.courier.deliveries.makeAsyncIterator()
            try setModels(f, url: url, ["a", "b", "secret"])
            let advert = try await next(&it) { if case .advert(let a) = $0, a.models.count == 2 { a } else { nil } }
            // Only the granted models, signed again by the host key over what it lists.
            #expect(advert.models.map(\.tag) == ["a", "b"])
            #expect(advert.verifies())
            #expect(f.guest.courier.stats.opened <= 2)
        }
    }
}
