import Foundation
import Glibc
import TestKit
import Testing
@testable import Signing

@Test func keySavesWithMode0600AndLoads() throws {
    let dir = try temporaryDirectory("homebase-signing")
    let path = dir + "/device.key"
    let key = SigningKey.generate()
    let old = umask(0)  // even a permissive umask must not widen the file's mode
    defer { umask(old) }
    try key.save(to: path)
    #expect(fileMode(path) == 0o600)
    let loaded = try SigningKey.load(from: path)
    #expect(loaded.publicKey == key.publicKey)
    // Saving again replaces the file atomically and leaves no temporary behind.
    try SigningKey.generate().save(to: path)
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["device.key"])
    #expect(try SigningKey.load(from: path).publicKey != key.publicKey)
}

@Test func loadRefusesGroupOrOtherAccess() throws {
    let path = try temporaryDirectory("homebase-signing") + "/device.key"
    try SigningKey.generate().save(to: path)
    for bad: mode_t in [0o640, 0o604, 0o620, 0o602] {
        chmod(path, bad)
        #expect(throws: SigningError.keyFileInsecure(path: path)) { try SigningKey.load(from: path) }
    }
    let message = SigningError.keyFileInsecure(path: path).description
    #expect(message.contains("chmod 600 \(path)"))
    chmod(path, 0o400)
    #expect(throws: Never.self) { try SigningKey.load(from: path) }
}

@Test func loadRefusesWrongLength() throws {
    let path = try temporaryDirectory("homebase-signing") + "/device.key"
    try KeyFile.write(SecretBytes([UInt8](repeating: 7, count: 33)), to: path)
    #expect(throws: SigningError.keyFileWrongLength(path: path, expected: 32, actual: 33)) {
        try SigningKey.load(from: path)
    }
    try KeyFile.write(SecretBytes([UInt8]()), to: path)
    #expect(throws: SigningError.keyFileWrongLength(path: path, expected: 32, actual: 0)) {
        try SigningKey.load(from: path)
    }
}

@Test func loadRefusesDirectoriesAndMissingFiles() throws {
    let dir = try temporaryDirectory("homebase-signing")
    chmod(dir, 0o700)
    #expect(throws: SigningError.keyFileNotRegular(path: dir)) { try KeyFile.read(from: dir, count: 32) }
    #expect(throws: SigningError.io(operation: "open", path: dir + "/nope", errno: ENOENT)) {
        try SigningKey.load(from: dir + "/nope")
    }
}
