import Foundation
import Signing
import Testing
@testable import HomebaseAgent
@testable import homebase

/// `homebase devices add` with a validly signed record whose HPKE key is all zero (small order):
/// refused, and the roster is not re-signed (issue 15, hole 9).
@Test func devicesAddRefusesASmallOrderHPKEKey() async throws {
    let files = HostFiles(dataDir: try temporaryDirectory("host") + "/host")
    _ = try files.initialize(name: "workstation", nowMs: nowMs())
    let key = SigningKey.generate()
    var b: [UInt8] = [1] + key.publicKey.bytes + [UInt8](repeating: 0, count: 32) + [0, 0, 0, 0, 0, 0, 0, 1]
    b += [6] + Array("laptop".utf8)
    let record = b + key.sign(Array("homebase device record v1".utf8) + [0] + b)
    let status = await HomebaseCLI.main(["homebase", "--data-dir", files.dataDir, "devices", "add", hex(record)],
                                        environment: ["HOME": "/nonexistent"])
    #expect(status == 1)
    let store = try files.openStore()
    defer { store.close() }
    #expect(try store.devices().count == 1)
    #expect(try store.roster()?.version == 1)
}
