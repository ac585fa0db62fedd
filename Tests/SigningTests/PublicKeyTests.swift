import Basics
import Foundation
import Testing
@testable import Signing

@Test func publicKeyHexRoundTrip() throws {
    let key = try #require(PublicKey(hex: rfcPublic))
    #expect(key.hex == rfcPublic)
    #expect(PublicKey(hex: rfcPublic.uppercased()) == key)
    #expect(PublicKey(hex: String(rfcPublic.dropLast(2))) == nil)
    #expect(PublicKey(hex: rfcPublic + "00") == nil)
    #expect(PublicKey(hex: "zz" + rfcPublic.dropFirst(2)) == nil)
    #expect(PublicKey(bytes: [UInt8](repeating: 0, count: 33)) == nil)
}

@Test func publicKeyCodableAsHex() throws {
    let key = try #require(PublicKey(hex: rfcPublic))
    let json = try JSONEncoder().encode([key])
    #expect(String(decoding: json, as: UTF8.self) == "[\"\(rfcPublic)\"]")
    #expect(try JSONDecoder().decode([PublicKey].self, from: json) == [key])
    #expect(throws: DecodingError.self) {
        try JSONDecoder().decode([PublicKey].self, from: Data("[\"abcd\"]".utf8))
    }
}

@Test func publicKeysHashByValue() throws {
    let a = try #require(PublicKey(hex: rfcPublic))
    let b = try #require(PublicKey(bytes: bytes(fromHex: rfcPublic)!))
    #expect(Set([a, b]).count == 1)
}

@Test func secretBytesCompareByValue() {
    let a = SecretBytes([1, 2, 3])
    #expect(a == SecretBytes([1, 2, 3]))
    #expect(a != SecretBytes([1, 2, 4]))
    #expect(a != SecretBytes([1, 2]))
    #expect(SecretBytes([UInt8]()) == SecretBytes([UInt8]()))
    #expect(!a.description.contains("1"))
    #expect(SecretBytes.random(count: 32) != SecretBytes.random(count: 32))
}

@Test func secretBytesFillFailurePropagates() {
    struct Boom: Error {}
    #expect(throws: Boom.self) { try SecretBytes(count: 8) { _ in throw Boom() } }
}
