import Dispatch
import Foundation
import Inference
import Testing
@testable import CloudKeys

@Suite struct KeySourceTests {
    @Test func providersReadTheSlotSoAReorderChangesTheNextCallsKey() throws {
        let store = CloudKeyStore(dataDir: try freshDataDir())
        let source = store.keySource(.anthropic)
        #expect(throws: InferenceError.self) { _ = try source.key() }
        try store.add(.anthropic, key: secret("sk-ant-first-aaaaaaaaaaaa"))
        try store.add(.anthropic, key: secret("sk-ant-second-bbbbbbbbbbb"))
        #expect(try source.key() == "sk-ant-first-aaaaaaaaaaaa")
        try store.move(.anthropic, from: 2, to: 1)
        #expect(try source.key() == "sk-ant-second-bbbbbbbbbbb")
        try store.remove(.anthropic, position: 1)
        try store.remove(.anthropic, position: 1)
        #expect(throws: InferenceError.self) { _ = try source.key() }
    }

    @Test func concurrentEditsLoseNothing() throws {
        let store = CloudKeyStore(dataDir: try freshDataDir())
        DispatchQueue.concurrentPerform(iterations: 24) { i in
            try? store.add(.openAI, key: secret("sk-concurrent-key-\(1000 + i)"))
        }
        let ring = try store.keys(.openAI)
        #expect(ring.count == 24)
        #expect(Set(ring.map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }).count == 24)
    }
}
