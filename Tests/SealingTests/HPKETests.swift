import Glibc
import TestKit
import Testing
@testable import Sealing
import Signing

let info = Array("test info".utf8)

@Test(arguments: [false, true], [false, true])
func singleShotRoundTripInEveryMode(usePSK: Bool, useAuth: Bool) throws {
    let recipient = HPKE.PrivateKey.generate()
    let sender = useAuth ? HPKE.PrivateKey.generate() : nil
    let psk = usePSK ? try HPKE.PSK(key: .random(count: 32), id: [1, 2, 3]) : nil
    let sealed = try HPKE.seal(Array("hello".utf8), aad: [9], to: recipient.publicKey, info: info,
                               psk: psk, senderKey: sender)
    let opened = try HPKE.open(sealed.ciphertext, aad: [9], encapsulatedKey: sealed.encapsulatedKey,
                               recipientKey: recipient, info: info, psk: psk, senderKey: sender?.publicKey)
    #expect(opened == Array("hello".utf8))
    #expect(throws: SealingError.openFailed) {
        try HPKE.open(sealed.ciphertext, aad: [8], encapsulatedKey: sealed.encapsulatedKey,
                      recipientKey: recipient, info: info, psk: psk, senderKey: sender?.publicKey)
    }
    #expect(throws: SealingError.openFailed) {
        try HPKE.open(sealed.ciphertext, aad: [9], encapsulatedKey: sealed.encapsulatedKey,
                      recipientKey: recipient, info: info + [0], psk: psk, senderKey: sender?.publicKey)
    }
}

@Test func authModeRejectsAnotherSender() throws {
    let recipient = HPKE.PrivateKey.generate()
    let sealed = try HPKE.seal([1], to: recipient.publicKey, info: info, senderKey: .generate())
    #expect(throws: SealingError.openFailed) {
        try HPKE.open(sealed.ciphertext, encapsulatedKey: sealed.encapsulatedKey, recipientKey: recipient,
                      info: info, senderKey: HPKE.PrivateKey.generate().publicKey)
    }
}

@Test func pskRulesOfRFC9180() throws {
    // PSK values: both parts, 32 bytes at least.
    #expect(throws: SealingError.invalidPSK) { try HPKE.PSK(key: .random(count: 32), id: [UInt8]()) }
    #expect(throws: SealingError.invalidPSK) { try HPKE.PSK(key: .random(count: 31), id: [1]) }
    // VerifyPSKInputs per mode.
    let psk = [UInt8](repeating: 1, count: 32)
    for mode in [HPKE.Mode.base, .auth] {
        #expect(throws: Never.self) { try HPKEKeySchedule.verifyPSKInputs(mode: mode, psk: [], pskID: []) }
        #expect(throws: SealingError.invalidPSK) { try HPKEKeySchedule.verifyPSKInputs(mode: mode, psk: psk, pskID: [1]) }
    }
    for mode in [HPKE.Mode.psk, .authPSK] {
        #expect(throws: Never.self) { try HPKEKeySchedule.verifyPSKInputs(mode: mode, psk: psk, pskID: [1]) }
        #expect(throws: SealingError.invalidPSK) { try HPKEKeySchedule.verifyPSKInputs(mode: mode, psk: [], pskID: []) }
        #expect(throws: SealingError.invalidPSK) { try HPKEKeySchedule.verifyPSKInputs(mode: mode, psk: psk, pskID: []) }
        #expect(throws: SealingError.invalidPSK) { try HPKEKeySchedule.verifyPSKInputs(mode: mode, psk: [], pskID: [1]) }
    }
}

@Test func sequenceNumbersAdvanceAndNeverWrap() throws {
    let recipient = HPKE.PrivateKey.generate()
    let sender = try HPKE.Sender(recipientKey: recipient.publicKey, info: info)
    let receiver = try HPKE.Recipient(encapsulatedKey: sender.encapsulatedKey, recipientKey: recipient, info: info)
    let first = try sender.seal([1])
    let second = try sender.seal([2])
    #expect(throws: SealingError.openFailed) { try receiver.open(second) }  // seq 0 expected
    #expect(try receiver.open(first) == [1])
    #expect(try receiver.open(second) == [2])
    sender.schedule.sequence = UInt64.max - 1
    _ = try sender.seal([3])
    #expect(throws: SealingError.messageLimitReached) { try sender.seal([4]) }
}

@Test func exportLengthIsBounded() throws {
    let sender = try HPKE.Sender(recipientKey: HPKE.PrivateKey.generate().publicKey, info: info)
    #expect(try sender.export(context: [1], length: HPKE.maxExportLength).count == 8160)
    #expect(throws: SealingError.exportTooLong) { try sender.export(context: [1], length: 8161) }
    #expect(try sender.export(context: [1], length: 32) != sender.export(context: [2], length: 32))
}

@Test func smallOrderKeysAreRefused() throws {
    // The all-zero point and the point of order 8 give an all-zero shared secret.
    let zero = HPKE.PublicKey(bytes: [UInt8](repeating: 0, count: 32))!
    let order8 = HPKE.PublicKey(bytes: unhex("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"))!
    for bad in [zero, order8] {
        #expect(throws: SealingError.invalidKey) { try HPKE.Sender(recipientKey: bad, info: info) }
        #expect(throws: SealingError.invalidKey) {
            try HPKE.Recipient(encapsulatedKey: bad.bytes, recipientKey: .generate(), info: info)
        }
    }
    #expect(throws: SealingError.invalidKey) {
        try HPKE.Recipient(encapsulatedKey: [1, 2, 3], recipientKey: .generate(), info: info)
    }
    #expect(throws: SealingError.invalidKey) { try HPKE.PrivateKey(secret: .random(count: 31)) }
}

@Test func hpkeKeyFilesRoundTrip() throws {
    let path = try temporaryDirectory("homebase-sealing") + "/hpke.key"
    let key = HPKE.PrivateKey.generate()
    try key.save(to: path)
    #expect(try HPKE.PrivateKey.load(from: path).publicKey == key.publicKey)
    chmod(path, 0o644)
    #expect(throws: SealingError.keyFile(.keyFileInsecure(path: path))) { try HPKE.PrivateKey.load(from: path) }
}
