import Basics
import Foundation
import Testing
@testable import Signing

// RFC 8032 section 7.1, TEST 2 (one-byte message).
let rfcSeed = "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"
let rfcPublic = "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"
let rfcSignature = "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
    + "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"

@Test func signingMatchesRFC8032() throws {
    let key = try SigningKey(seed: SecretBytes(bytes(fromHex: rfcSeed)!))
    #expect(key.publicKey.hex == rfcPublic)
    let sig = key.sign([0x72])
    #expect(hexString(sig) == rfcSignature)
    #expect(key.publicKey.isValidSignature(sig, for: [0x72]))
}

@Test func signatureRejectsTampering() {
    let key = SigningKey.generate()
    let message = Array("hello relay".utf8)
    var sig = key.sign(message)
    #expect(key.publicKey.isValidSignature(sig, for: message))
    #expect(!key.publicKey.isValidSignature(sig, for: Array("hello relaz".utf8)))
    #expect(!SigningKey.generate().publicKey.isValidSignature(sig, for: message))
    #expect(!key.publicKey.isValidSignature(sig.prefix(63), for: message))
    sig[10] ^= 1
    #expect(!key.publicKey.isValidSignature(sig, for: message))
}

@Test func emptyMessageSignsAndVerifies() {
    let key = SigningKey.generate()
    let sig = key.sign([UInt8]())
    #expect(key.publicKey.isValidSignature(sig, for: [UInt8]()))
    #expect(!key.publicKey.isValidSignature(sig, for: [0]))
}

@Test func seedLengthIsChecked() {
    #expect(throws: SigningError.invalidSecretLength(expected: 32, actual: 31)) {
        try SigningKey(seed: SecretBytes([UInt8](repeating: 1, count: 31)))
    }
}

@Test func seedRoundTrips() throws {
    let key = SigningKey.generate()
    let again = try SigningKey(seed: key.seed)
    #expect(again.publicKey == key.publicKey)
    #expect(again.seed == key.seed)
}
