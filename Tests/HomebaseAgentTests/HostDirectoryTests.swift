import Courier
import Sealing
import Signing
import Testing
@testable import HomebaseAgent

// Who reaches the opener (issue 15, hole 2): siblings, and grantees only while a grant is in force.
struct HostDirectoryTests {
    let sibling = try! DeviceIdentity.generate(name: "laptop", now: 1).record
    let active = try! DeviceIdentity.generate(name: "friend", now: 1).record
    let revoked = try! DeviceIdentity.generate(name: "ex", now: 1).record
    let expiring = try! DeviceIdentity.generate(name: "guest", now: 1).record

    func grant(_ to: DeviceRecord, expiresMs: Int64 = 0, revoked: Bool = false) -> GrantRecord {
        GrantRecord(grantID: .random(), grantee: to, models: ["m"], expiresMs: expiresMs, revoked: revoked, createdMs: 0)
    }

    @Test func onlySiblingsAndGranteesWithAGrantInForceAreKnown() {
        final class Clock: @unchecked Sendable { var ms: Int64 = 1_000 }
        let clock = Clock()
        let d = HostDirectory(now: { clock.ms })
        d.replace(siblings: [sibling.signingKey: sibling],
                  grants: [active.signingKey: [grant(active, revoked: true), grant(active)],
                           revoked.signingKey: [grant(revoked, revoked: true)],
                           expiring.signingKey: [grant(expiring, expiresMs: 2_000)]])
        #expect(d.record(for: sibling.signingKey) == sibling && d.isOwnDevice(sibling.signingKey))
        #expect(d.record(for: active.signingKey) == active && !d.isOwnDevice(active.signingKey))
        #expect(d.record(for: revoked.signingKey) == nil)
        #expect(d.record(for: expiring.signingKey) == expiring)
        clock.ms = 2_000  // the grant ends: its grantee is dropped at once, before any reload
        #expect(d.record(for: expiring.signingKey) == nil)
    }

    @Test func statusSaysWhatWasRefusedInWords() {
        var stats = CourierStats()
        #expect(HostStatus.Refused(stats).line == "messages refused since start: none")
        stats.replays = 3; stats.openFailed = 1
        let line = HostStatus.Refused(stats).line
        #expect(line.contains("3 replayed or out-of-time") && line.contains("1 could not be opened"))
        #expect(!line.contains("first contacts"))
    }
}
