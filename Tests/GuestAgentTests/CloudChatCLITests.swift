import Foundation
@testable import GuestAgent
import Testing

/// `settings` picks OpenAI or Claude, then `guest chat` is answered by a loopback STAND-IN of that
/// cloud (peers/cloud_standin.py: its real streaming shapes); a bad or missing key answers on
/// the real tiny on-device model.
@Suite(.serialized) struct CloudChatCLITests {
    func guest(_ peer: CloudStandIn) throws -> GuestRunner {
        var g = try GuestRunner()
        g.environment = ["HOMEBASE_OPENAI_BASE_URL": peer.url, "HOMEBASE_ANTHROPIC_BASE_URL": peer.url]
        return g
    }

    @Test func openAIAnswersThenARotatedBadKeyFallsBackThenNoKeyRoutesOnDevice() async throws {
        let tiny = try Engine.tiny()
        let peer = try CloudStandIn()
        defer { peer.stop() }
        let g = try guest(peer)
        let local = ["--model-path", tiny.path, "--llama-server", Engine.binary, "--max-tokens", "8"]
        #expect(try g.run(["keys", "add", "openai"], input: KeysCLITests.good + "\n").status == 0)
        for (name, value) in [("model.source", "external"), ("external.runtime", "openai")] {
            #expect(try g.run("settings", "set", name, value).status == 0)
        }

        let answered = try g.run(["chat", "hello"] + local)
        #expect(answered.status == 0, "\(answered.err)")
        #expect(answered.out.hasPrefix("Hello from the OpenAI stand-in (key …wxyz).\n"))
        let line = try #require(answered.out.split(separator: "\n").last)
        #expect(line.hasPrefix("[openai · first token"), "\(line)")

        // openai.model pins the model the cloud is asked for.
        #expect(try g.run("settings", "set", "openai.model", "gpt-4o-mini").status == 0)
        #expect(try g.run(["chat", "again"] + local).status == 0)

        // Rotation: the bad key moved first is read by the very next request; its 401 falls
        // back to the device, visibly.
        #expect(try g.run(["keys", "add", "openai"], input: KeysCLITests.bad + "\n").status == 0)
        #expect(try g.run("keys", "move", "openai", "2", "1").status == 0)
        let fell = try g.run(["chat", "hello"] + local)
        #expect(fell.status == 0, "\(fell.err)")
        let fellLine = try #require(fell.out.split(separator: "\n").last)
        #expect(fellLine.hasPrefix("[on-device · "), "\(fellLine)")
        #expect(fellLine.contains("fell back: openai failed (HTTP 401"), "\(fellLine)")
        #expect(!fell.out.contains("stand-in"))

        // No key at all: the router does not choose OpenAI; the device answers without a fallback.
        #expect(try g.run("keys", "remove", "openai", "1").status == 0)
        #expect(try g.run("keys", "remove", "openai", "1").status == 0)
        let none = try g.run(["chat", "hello"] + local)
        #expect(none.status == 0, "\(none.err)")
        let noneLine = try #require(none.out.split(separator: "\n").last)
        #expect(noneLine.hasPrefix("[on-device · first token"), "\(noneLine)")
        #expect(!noneLine.contains("fell back"))
        #expect(try g.run("status").out.contains("but no OpenAI key is on file: on-device"))

        let seen = try await peer.record()
        #expect(seen.map { $0["path"] ?? "" } == Array(repeating: "/v1/chat/completions", count: 3))
        #expect(seen.map { $0["key_tail"] ?? "" } == ["wxyz", "wxyz", "abcd"])
        #expect(seen.map { $0["model"] ?? "" } == ["default", "gpt-4o-mini", "gpt-4o-mini"])
        let log = try String(contentsOfFile: g.dataDir + "/guest.log", encoding: .utf8)
        #expect(!log.contains("hello") && !log.contains(KeysCLITests.bad) && !log.contains("bad0000"))
    }

    @Test func claudeAnswersThroughTheMessagesStream() async throws {
        let peer = try CloudStandIn()
        defer { peer.stop() }
        let g = try guest(peer)
        #expect(try g.run(["keys", "add", "anthropic"], input: KeysCLITests.claude + "\n").status == 0)
        for (name, value) in [("model.source", "external"), ("external.runtime", "claude"), ("claude.model", "claude-sonnet-4-5")] {
            #expect(try g.run("settings", "set", name, value).status == 0)
        }
        let r = try g.run("chat", "hello", "--max-tokens", "64")
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasPrefix("Hello from the Anthropic stand-in (key …ant1).\n"))
        let line = try #require(r.out.split(separator: "\n").last)
        #expect(line.hasPrefix("[anthropic · first token"), "\(line)")
        let seen = try await peer.record()
        #expect(seen.count == 1)
        #expect(seen.first?["path"] == "/v1/messages")
        #expect(seen.first?["model"] == "claude-sonnet-4-5")
        #expect(seen.first?["anthropic_version"] == "2023-06-01")
        #expect(seen.first?["key_tail"] == "ant1")
    }
}
