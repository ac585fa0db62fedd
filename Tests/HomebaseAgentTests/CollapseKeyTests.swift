import Courier
import Dispatch
import Foundation
import Inference
import Sealing
import Signing
import Storage
import Synchronization
import Testing
import Wire
@testable import HomebaseAgent
@testable import RelayServer

/// Adverts and rosters carry opaque collapse keys: the real relay still keeps only the newest
/// advert for an offline sibling, and what it stores reveals neither the kind nor ties the keys
/// of two recipients together.
@Suite(.serialized) struct CollapseKeyTests {
    @Test func twoAdvertsToAnOfflineSiblingCollapseUnderAnOpaqueKey() async throws {
        let url = try ScriptedEngine.url("ok")
        let f = try await HostFixture(runtime: (url, ["a"]))
        let phone = try DeviceIdentity.generate(name: "phone", now: 1)  // a second sibling, never online
        do {
            let store = try f.files.openStore()
            _ = try store.addDevice(phone.record, accountKey: try f.files.loadAccountKey(), nowMs: nowMs())
            store.close()
            try f.agent.reload()
            f.agent.start()  // the guest stays offline: everything waits in its mailbox
            try await eventually("host link connected") { f.agent.courier.link.state.isConnected }
            // The advert of the connection, then a model change: a second advert to each sibling.
            try await eventually("first adverts stored") { try f.relay.mailCount(.stored) >= 4 }
            try setModels(f, url: url, ["a", "b"])
            try await eventually("the newer adverts replaced the older") { try f.relay.mailCount(.replaced) >= 2 }

            let rows = try f.relay.storedMail()
            let guestKey = f.guest.identity.record.signingKey.bytes, phoneKey = phone.record.signingKey.bytes
            let guestKeys = rows.filter { $0.recipient == guestKey }.map(\.collapseKey)
            let phoneKeys = rows.filter { $0.recipient == phoneKey }.map(\.collapseKey)
            // One roster and one advert per recipient: nothing piled up.
            #expect(guestKeys.count == 2 && phoneKeys.count == 2)
            #expect(Set(guestKeys).count == 2 && Set(phoneKeys).isDisjoint(with: guestKeys))
            for key in guestKeys + phoneKeys {
                #expect(key.count == Courier.collapseKeyLength)
                #expect(!contains(key, "advert") && !contains(key, "roster"))
            }
            let advertKey = f.agent.courier.collapseKey(AdvertSigner.advertKind, to: f.guest.identity.record.signingKey)
            #expect(guestKeys.contains(advertKey))

            // The guest comes online: the one advert it finds is the newest.
            var it = f.guest.courier.deliveries.makeAsyncIterator()
            try await f.guest.start()
            var first: AppMessage.Advert?
            while first == nil, let d = await it.next() {
                d.ack()
                if case .advert(let a) = d.message { first = a }
            }
            #expect(first?.models.map(\.tag) == ["a", "b"])
        } catch {
            await f.stop()
            throw error
        }
        await f.stop()
    }

    func setModels(_ f: HostFixture, url: String, _ models: [String]) throws {
        let store = try f.files.openStore()
        defer { store.close() }
        try store.save(StoredRuntime(url: url, kind: .llamaServer, version: nil, available: true,
                                     models: models.map { RuntimeModel(tag: $0, capabilities: [.completion]) },
                                     addedMs: 1, verifiedMs: 1, checkedMs: 1, lastError: nil))
    }

    func contains(_ key: [UInt8], _ word: String) -> Bool {
        let w = Array(word.utf8)
        return key.count >= w.count && (0...(key.count - w.count)).contains { Array(key[$0..<$0 + w.count]) == w }
    }
}

extension RelayFixture {
    /// The relay's counter of `event` (read on its loop thread).
    func mailCount(_ event: Metrics.MailEvent) throws -> Int {
        let relay = relay, done = DispatchSemaphore(value: 0), box = Mutex(0)
        loop.execute { box.withLock { $0 = relay.hub.metrics.mail[event, default: 0] }; done.signal() }
        guard done.wait(timeout: .now() + 20) == .success else { throw TestSetupError("relay loop did not answer") }
        return box.withLock { $0 }
    }

    /// What the relay's mailbox holds: recipient and collapse key of every stored frame.
    func storedMail() throws -> [(recipient: [UInt8], collapseKey: [UInt8])] {
        let db = try Database(path: dataDir + "/mailbox.sqlite3", schema: MailboxSchema.schema)
        defer { db.close() }
        return try db.query("SELECT recipient, collapse_key FROM mail ORDER BY seq").map { row in
            guard case .blob(let r) = row[0], case .blob(let k) = row[1] else { throw TestSetupError("unexpected row") }
            return (r, k)
        }
    }
}
