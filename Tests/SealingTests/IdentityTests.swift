import Glibc
import TestKit
import Testing
@testable import Sealing
import Signing

@Test func recordRoundTripsAndVerifies() throws {
    let identity = try DeviceIdentity.generate(name: "laptop ☕", now: 1_700_000_000_000)
    let encoded = identity.record.encoded
    #expect(encoded.count == 74 + "laptop ☕".utf8.count + 64)
    let decoded = try DeviceRecord(encoded: encoded)
    #expect(decoded == identity.record)
    #expect(decoded.name == "laptop ☕")
    #expect(decoded.createdAt == 1_700_000_000_000)
    #expect(decoded.hpkeKey == identity.hpkeKey.publicKey)
}

@Test func forgedRecordsAreRefused() throws {
    let identity = try DeviceIdentity.generate(name: "workstation", now: 42)
    let good = identity.record.encoded
    // Every single flipped bit anywhere is refused (signature, keys, time, name, lengths).
    for i in 0..<good.count {
        var bad = good
        bad[i] ^= 0x01
        #expect(throws: SealingError.invalidRecord) { try DeviceRecord(encoded: bad) }
    }
    // Another device's HPKE key under this signing key: the signature does not cover it.
    let other = try DeviceIdentity.generate(name: "workstation", now: 42)
    var swapped = good
    swapped.replaceSubrange(33..<65, with: other.hpkeKey.publicKey.bytes)
    #expect(throws: SealingError.invalidRecord) { try DeviceRecord(encoded: swapped) }
    #expect(throws: SealingError.invalidRecord) { try DeviceRecord(encoded: good.dropLast()) }
    #expect(throws: SealingError.invalidRecord) { try DeviceRecord(encoded: good + [0]) }
    #expect(throws: SealingError.invalidRecord) { try DeviceRecord(encoded: [UInt8]()) }
}

@Test func recordNamesAreBounded() throws {
    #expect(throws: SealingError.invalidRecord) { try DeviceIdentity.generate(name: "", now: 0) }
    #expect(throws: SealingError.invalidRecord) { try DeviceIdentity.generate(name: String(repeating: "x", count: 65), now: 0) }
    #expect(throws: Never.self) { try DeviceIdentity.generate(name: String(repeating: "x", count: 64), now: 0) }
}

@Test func identitySavesAndLoads() throws {
    let dir = try temporaryDirectory("homebase-sealing") + "/identity"
    let identity = try DeviceIdentity.generate(name: "guest", now: 7)
    try identity.save(to: dir)
    for file in [DeviceIdentity.signingKeyFile, DeviceIdentity.hpkeKeyFile] {
        #expect(fileMode(dir + "/" + file) == 0o600)
    }
    let loaded = try DeviceIdentity.load(from: dir)
    #expect(loaded.record == identity.record)
    #expect(loaded.hpkeKey.publicKey == identity.hpkeKey.publicKey)
    #expect(loaded.signingKey.publicKey == identity.signingKey.publicKey)
}

@Test func identityLoadRefusesMismatchedFiles() throws {
    let dir = try temporaryDirectory("homebase-sealing")
    try DeviceIdentity.generate(name: "a", now: 1).save(to: dir)
    try HPKE.PrivateKey.generate().save(to: dir + "/" + DeviceIdentity.hpkeKeyFile)
    #expect(throws: SealingError.invalidRecord) { try DeviceIdentity.load(from: dir) }
    chmod(dir + "/" + DeviceIdentity.signingKeyFile, 0o660)
    let path = dir + "/" + DeviceIdentity.signingKeyFile
    #expect(throws: SealingError.keyFile(.keyFileInsecure(path: path))) { try DeviceIdentity.load(from: dir) }
}
