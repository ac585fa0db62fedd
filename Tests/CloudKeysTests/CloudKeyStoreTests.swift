import Foundation
import Glibc
import Signing
import TestSupport
import Testing
@testable import CloudKeys

func freshDataDir() throws -> String { try temporaryDirectory("cloudkeys") }

func slotText(_ path: String) -> String? {
    (try? Data(contentsOf: URL(fileURLWithPath: path))).map { String(decoding: $0, as: UTF8.self) }
}

func secret(_ s: String) -> SecretBytes { SecretBytes(Array(s.utf8)) }

@Suite struct CloudKeyStoreTests {
    @Test func addMirrorsTheFirstKeyIntoTheSlotWithMode0600() throws {
        let dir = try freshDataDir()
        let store = CloudKeyStore(dataDir: dir)
        try store.add(.openAI, key: secret("sk-proj-aaaaaaaaaaaaaaaa1111"))
        try store.add(.openAI, key: secret("sk-proj-bbbbbbbbbbbbbbbb2222"))
        #expect(slotText(dir + "/keys/openai") == "sk-proj-aaaaaaaaaaaaaaaa1111")
        #expect(fileMode(dir + "/keys/openai") == 0o600)
        #expect(fileMode(dir + "/keyring/openai") == 0o600)
        #expect(fileMode(dir + "/keyring") == 0o700)
        #expect(try store.keys(.openAI).count == 2)
        #expect(try store.keys(.anthropic).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir + "/keys/anthropic"))
    }

    @Test func duplicatesAreRefused() throws {
        let store = CloudKeyStore(dataDir: try freshDataDir())
        try store.add(.anthropic, key: secret("sk-ant-api03-xxxxxxxxxxxx9999"))
        #expect(throws: CloudKeysError.duplicate(.anthropic)) {
            try store.add(.anthropic, key: secret("sk-ant-api03-xxxxxxxxxxxx9999"))
        }
        #expect(try store.keys(.anthropic).count == 1)
    }

    @Test func malformedKeysAreRefused() throws {
        let store = CloudKeyStore(dataDir: try freshDataDir())
        for bad in ["", "sk with space", "sk-\n-two-lines", String(repeating: "k", count: 513)] {
            #expect(throws: CloudKeysError.self) { try store.add(.openAI, key: secret(bad)) }
        }
        #expect(try store.keys(.openAI).isEmpty)
    }

    @Test func reorderChangesTheMirroredSlot() throws {
        let dir = try freshDataDir()
        let store = CloudKeyStore(dataDir: dir)
        for k in ["sk-one-aaaaaaaaaaaa", "sk-two-bbbbbbbbbbbb", "sk-three-cccccccccc"] { try store.add(.openAI, key: secret(k)) }
        try store.move(.openAI, from: 3, to: 1)
        #expect(slotText(dir + "/keys/openai") == "sk-three-cccccccccc")
        #expect(try store.keys(.openAI) == ["sk-three-cccccccccc", "sk-one-aaaaaaaaaaaa", "sk-two-bbbbbbbbbbbb"].map(secret))
        try store.remove(.openAI, position: 1)
        #expect(slotText(dir + "/keys/openai") == "sk-one-aaaaaaaaaaaa")
        #expect(throws: CloudKeysError.noSuchPosition(.openAI, position: 3, count: 2)) { try store.move(.openAI, from: 3, to: 1) }
        try store.remove(.openAI, position: 1)
        try store.remove(.openAI, position: 1)
        // An empty ring leaves no slot: the router sees no key.
        #expect(!FileManager.default.fileExists(atPath: dir + "/keys/openai"))
    }

    @Test func aStoreOthersMayReadIsRefused() throws {
        let dir = try freshDataDir()
        let store = CloudKeyStore(dataDir: dir)
        try store.add(.openAI, key: secret("sk-proj-aaaaaaaaaaaaaaaa1111"))
        chmod(dir + "/keyring/openai", 0o644)
        #expect(throws: CloudKeysError.insecureStore(path: dir + "/keyring/openai")) { _ = try store.keys(.openAI) }
        #expect(throws: CloudKeysError.insecureStore(path: dir + "/keyring/openai")) {
            try store.add(.openAI, key: secret("sk-proj-other-key-000000"))
        }
        chmod(dir + "/keyring/openai", 0o640)
        #expect(throws: CloudKeysError.self) { _ = try store.keys(.openAI) }
    }

    @Test func masksKeepTheConventionalPrefixAndTheLastFour() {
        #expect(KeyMask.masked(secret("sk-ant-api03-abcdefghijklmnopWXYZ")) == "sk-ant-•••••WXYZ")
        #expect(KeyMask.masked(secret("sk-proj-abcdefghijklmnop1234")) == "sk-proj-•••••1234")
        #expect(KeyMask.masked(secret("sk-abcdefghijklmnop5678")) == "sk-•••••5678")
        #expect(KeyMask.masked(secret("plainkeyabcdefgh9999")) == "•••••9999")
        // Too short to spare its last four.
        #expect(KeyMask.masked(secret("sk-short1")) == "sk-•••••")
    }
}
