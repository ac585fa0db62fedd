import Foundation
import Testing
@testable import HomebaseAgent
@testable import homebase

/// `--config FILE` names the settings of every command the same way: a missing file is no
/// settings yet (`pair CODE` and `run --relay` on a fresh `--config`, as the README says), a
/// file that exists but cannot be read is an error (issue 15, SPEC corrections).
@Suite struct ConfigFileTests {
    @Test func aMissingNamedConfigIsNoSettingsForRunAsForTheOthers() throws {
        let dir = try temporaryDirectory("config")
        let missing = dir + "/fresh.conf"
        #expect(try Settings.load(path: missing, explicit: true).values.isEmpty)
        #expect(try Settings.load(path: missing, explicit: false).values.isEmpty)
        // A directory where the file should be is no config: said, not ignored.
        #expect(throws: HomebaseError.self) { try Settings.load(path: dir, explicit: true) }
    }

    @Test func relayAlternatesAreTheClustersOtherNodesDialledAfterTheRelay() throws {
        var s = Settings()
        s.values["relay"] = "wss://a.example"
        s.values["relay-alternates"] = "wss://b.example, wss://c.example:8443"
        #expect(try s.configuration().link.dialOrder.map(\.origin)
                == ["wss://a.example:443", "wss://b.example:443", "wss://c.example:8443"])
        s.values["relay-alternates"] = "ws://b.example"  // another scheme: another TLS context, refused
        #expect(throws: HomebaseError.self) { try s.configuration() }
    }
}
