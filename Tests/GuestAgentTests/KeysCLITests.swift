import Foundation
@testable import GuestAgent
import Glibc
import Testing

/// `guest keys` as a user meets it: the built binary, keys from stdin, the zero-token test
/// against a loopback STAND-IN of the OpenAI and Anthropic APIs (peers/cloud_standin.py).
@Suite(.serialized) struct KeysCLITests {
    static let good = "sk-proj-good0000000000000000wxyz"
    static let bad = "sk-proj-bad00000000000000000abcd"
    static let claude = "sk-ant-api03-good000000000000000ant1"

    @Test func addFromStdinListMaskedMoveRemove() throws {
        let g = try GuestRunner()
        let added = try g.run(["keys", "add", "openai"], input: Self.good + "\n")
        #expect(added.status == 0, "\(added.err)")
        #expect(added.out == "added sk-proj-•••••wxyz to openai (position 1)\n")
        #expect(try g.run(["keys", "add", "openai", "-"], input: Self.bad + "\n").out.contains("(position 2)"))
        #expect(try g.run(["keys", "add", "anthropic"], input: Self.claude + "\n").status == 0)
        let again = try g.run(["keys", "add", "openai"], input: Self.good + "\n")
        #expect(again.status == 2)
        #expect(again.err.contains("that key is already in the openai ring"))

        let list = try g.run("keys", "list")
        #expect(list.status == 0)
        #expect(list.out == """
            openai:
              1  sk-proj-•••••wxyz  (in use)
              2  sk-proj-•••••abcd
            anthropic:
              1  sk-ant-•••••ant1  (in use)

            """)
        for secret in [Self.good, Self.bad, Self.claude, "good0000", "bad0000"] {
            #expect(!list.out.contains(secret) && !added.out.contains(secret))
        }
        // The ring and the slot the providers read: private files; the slot holds the first key.
        for file in ["keyring/openai", "keys/openai", "keys/anthropic"] {
            #expect(fileMode(g.dataDir + "/" + file) == 0o600, "\(file)")
        }
        #expect(try String(contentsOfFile: g.dataDir + "/keys/openai", encoding: .utf8) == Self.good)

        #expect(try g.run("keys", "move", "openai", "2", "1").status == 0)
        #expect(try String(contentsOfFile: g.dataDir + "/keys/openai", encoding: .utf8) == Self.bad)
        #expect(try g.run("keys", "list").out.contains("1  sk-proj-•••••abcd  (in use)"))
        #expect(try g.run("keys", "remove", "openai", "1").status == 0)
        #expect(try String(contentsOfFile: g.dataDir + "/keys/openai", encoding: .utf8) == Self.good)
        #expect(try g.run("keys", "remove", "openai", "1").status == 0)
        #expect(!FileManager.default.fileExists(atPath: g.dataDir + "/keys/openai"), "an empty ring leaves no slot")
        #expect(try g.run("keys", "list").out.hasPrefix("openai: none\n"))
    }

    @Test func badCommandLinesExit2WithHelp() throws {
        let g = try GuestRunner()
        let help = try g.run("keys", "--help")
        #expect(help.status == 0)
        #expect(help.out.contains("guest keys: ") && help.out.contains("GET /v1/models") && help.out.contains("--data-dir DIR"))
        for args in [["keys", "frob"], ["keys", "add", "gemini", "k"], ["keys", "remove", "openai", "zero"], ["keys"]] {
            let r = try g.run(args, input: "")
            #expect(r.status == 2, "\(args)")
            #expect(!r.err.isEmpty && r.out.isEmpty, "\(args)")
        }
        #expect(try g.run(["keys", "add", "openai"], input: "").err.contains("no key on standard input"))
        #expect(try g.run("keys", "--bogus").err.contains("unknown flag --bogus"))
    }

    /// `keys test` is the zero-token probe: 200 valid (exit 0), 401 invalid (exit 1).
    @Test func testAgainstTheStandInSays200Or401() async throws {
        let peer = try CloudStandIn()
        defer { peer.stop() }
        var g = try GuestRunner()
        g.environment = ["HOMEBASE_OPENAI_BASE_URL": peer.url, "HOMEBASE_ANTHROPIC_BASE_URL": peer.url]
        for key in [Self.good, Self.bad] { #expect(try g.run(["keys", "add", "openai"], input: key + "\n").status == 0) }
        #expect(try g.run(["keys", "add", "anthropic"], input: Self.claude + "\n").status == 0)

        let valid = try g.run("keys", "test", "openai")
        #expect(valid.status == 0, "\(valid.out)\(valid.err)")
        #expect(valid.out == "openai key 1 (sk-proj-•••••wxyz): valid\n")
        let invalid = try g.run("keys", "test", "openai", "2")
        #expect(invalid.status == 1)
        #expect(invalid.out == "openai key 2 (sk-proj-•••••abcd): invalid (401)\n")
        let claude = try g.run("keys", "test", "anthropic")
        #expect(claude.status == 0, "\(claude.out)")
        #expect(claude.out.contains("valid"))

        let seen = try await peer.record()
        #expect(seen.map { $0["path"] ?? "" } == ["/v1/models", "/v1/models", "/v1/models"])
        #expect(seen.map { $0["key_tail"] ?? "" } == ["wxyz", "abcd", "ant1"])
        #expect(seen.last?["anthropic_version"] == "2023-06-01")

        // The URL also comes from the config file (the environment wins over it).
        var fromFile = g
        fromFile.environment = [:]
        try FileManager.default.createDirectory(atPath: g.configDir + "/homebase", withIntermediateDirectories: true)
        try Data(#"{"openai_base_url": "\#(peer.url)"}"#.utf8).write(to: URL(fileURLWithPath: g.configDir + "/homebase/guest.json"))
        #expect(try fromFile.run("keys", "test", "openai").out.hasSuffix(": valid\n"))
    }
}
