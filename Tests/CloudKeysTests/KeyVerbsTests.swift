import Foundation
import Synchronization
import Testing
@testable import CloudKeys
@testable import guest

/// Collects what a command prints.
final class Printed: Sendable {
    private let lines = Mutex<String>("")
    func callAsFunction(_ s: String) { lines.withLock { $0 += s } }
    var text: String { lines.withLock { $0 } }
}

@Suite struct KeyVerbsTests {
    @Test func addReadsStdinWhenNoKeyIsGivenAndListIsMasked() async throws {
        let dir = try freshDataDir()
        let out = Printed()
        let key = "sk-proj-secretsecretsecretABCD"
        #expect(await KeyVerbs.run(arguments: ["add", "openai"], dataDir: dir, output: { out($0) },
                                      readSecret: { Array(key.utf8) }) == 0)
        #expect(await KeyVerbs.run(arguments: ["add", "openai", "-"], dataDir: dir, output: { out($0) },
                                      readSecret: { Array("sk-proj-secondsecondsecondEFGH".utf8) }) == 0)
        #expect(await KeyVerbs.run(arguments: ["list"], dataDir: dir, output: { out($0) }) == 0)
        #expect(out.text.contains("1  sk-proj-•••••ABCD  (in use)"))
        #expect(out.text.contains("2  sk-proj-•••••EFGH"))
        #expect(!out.text.contains("secret"))
        #expect(slotText(dir + "/keys/openai") == key)
        #expect(await KeyVerbs.run(arguments: ["move", "openai", "2", "1"], dataDir: dir, output: { out($0) }) == 0)
        #expect(slotText(dir + "/keys/openai") == "sk-proj-secondsecondsecondEFGH")
    }

    @Test func badInputExitsWith2() async throws {
        let dir = try freshDataDir()
        let out = Printed()
        #expect(await KeyVerbs.run(arguments: ["add", "gemini", "k"], dataDir: dir, output: { out($0) }) == 2)
        #expect(await KeyVerbs.run(arguments: ["remove", "openai", "x"], dataDir: dir, output: { out($0) }) == 2)
        #expect(await KeyVerbs.run(arguments: ["remove", "openai", "1"], dataDir: dir, output: { out($0) }) == 2)
        #expect(await KeyVerbs.run(arguments: ["frobnicate"], dataDir: dir, output: { out($0) }) == 2)
        #expect(await KeyVerbs.run(arguments: ["add", "openai"], dataDir: dir, output: { out($0) }, readSecret: { nil }) == 2)
        #expect(await KeyVerbs.run(arguments: ["add", "openai", "sk-dup-dup-dup-dup"], dataDir: dir, output: { out($0) }) == 0)
        #expect(await KeyVerbs.run(arguments: ["add", "openai", "sk-dup-dup-dup-dup"], dataDir: dir, output: { out($0) }) == 2)
        #expect(out.text.contains("usage: guest keys"))
    }

    @Test func zeroTokenTestReportsValidInvalidAndOtherStatuses() async throws {
        let dir = try freshDataDir()
        let out = Printed()
        let base = "http://127.0.0.1:\(try ReplayPeer.port())/keys"
        let tester = KeyTester(openAIBaseURL: base, anthropicBaseURL: base)
        for k in ["sk-proj-good-000000000001", "sk-proj-bad-0000000000002", "sk-proj-limited-00000003"] {
            #expect(await KeyVerbs.run(arguments: ["add", "openai", k], dataDir: dir, output: { out($0) }) == 0)
        }
        #expect(await KeyVerbs.run(arguments: ["add", "anthropic", "sk-ant-good-00000000004"], dataDir: dir, output: { out($0) }) == 0)
        #expect(await KeyVerbs.run(arguments: ["test", "openai"], dataDir: dir, output: { out($0) }, tester: tester) == 0)
        #expect(await KeyVerbs.run(arguments: ["test", "openai", "2"], dataDir: dir, output: { out($0) }, tester: tester) == 1)
        #expect(await KeyVerbs.run(arguments: ["test", "openai", "3"], dataDir: dir, output: { out($0) }, tester: tester) == 1)
        // The peer refuses an Anthropic request without `anthropic-version`: valid proves the header.
        #expect(await KeyVerbs.run(arguments: ["test", "anthropic"], dataDir: dir, output: { out($0) }, tester: tester) == 0)
        let t = out.text
        #expect(t.contains("openai key 1 (sk-proj-•••••0001): valid"))
        #expect(t.contains("openai key 2 (sk-proj-•••••0002): invalid (401)"))
        #expect(t.contains("openai key 3 (sk-proj-•••••0003): HTTP 429: Rate limit reached"))
        #expect(t.contains("anthropic key 1 (sk-ant-•••••0004): valid"))
        #expect(!t.contains("good-0"))
    }
}
