import Foundation
import Sealing
import Signing
import Testing
@testable import HomebaseAgent
import Basics

/// A request re-reads only its sender's grants (the whole table per request was quadratic in
/// grantees: 1,000 grantees took 70 s to serve in bench-e2e instead of 14 s).
struct GrantQueryTests {
    @Test func oneGranteesGrantsAndNoOthers() throws {
        let store = try HostFiles(dataDir: try temporaryDirectory("grants")).openStore()
        defer { store.close() }
        let now = UInt64(wallClockMs())
        let devices = try (0..<3).map { try DeviceIdentity.generate(name: "friend-\($0)", now: now).record }
        for (i, d) in devices.enumerated() {
            for m in 0...i {
                try store.saveGrant(GrantRecord(grantID: .random(), grantee: d, models: ["m\(m)"], createdMs: Int64(now) + Int64(m)))
            }
        }
        let second = try store.grants(grantee: devices[1].signingKey)
        #expect(second.count == 2)
        #expect(second.allSatisfy { $0.grantee.signingKey == devices[1].signingKey })
        #expect(second.map(\.models) == [["m0"], ["m1"]])
        let stranger = try DeviceIdentity.generate(name: "stranger", now: now).record
        #expect(try store.grants(grantee: stranger.signingKey).isEmpty)
        #expect(try store.grants().count == 6)
    }
}
