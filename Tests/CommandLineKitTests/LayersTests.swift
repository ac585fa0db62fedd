import CommandLineKit
import Glibc
import Testing

/// A settings table in the relay's manner (a fake config, labelled: the kit's own test) and the
/// layers over it: defaults < config file < environment < flags.
@Suite struct LayersTests {
    /// Test-only config.
    struct FakeConfig { var ttl: Duration = .seconds(60); var burst = 10; var name = "x" }

    let table = KeyTable<FakeConfig>([
        ConfigKey(key: "mail-ttl", help: "how long mail lives", form: DurationGrammar.form(bare: .refused),
                  apply: { c, s in guard let d = DurationGrammar.parse(s, bare: .refused) else { return false }; c.ttl = d; return true },
                  show: { DurationGrammar.text($0.ttl) }),
        ConfigKey(key: "burst", help: "frames at once", form: "a whole number",
                  apply: { c, s in guard let n = CountGrammar.whole(s) else { return false }; c.burst = n; return true },
                  show: { "\($0.burst)" }),
        ConfigKey(key: "name", help: "a name", form: "text", apply: { c, s in c.name = s; return true }, show: { $0.name }),
    ], environmentPrefix: "FAKE_")

    @Test func laterLayersWin() throws {
        let file = try ConfigLayers.parseFile("# comment\nmail-ttl = 2h\r\n\n burst=3 # trailing\nname = file\n", path: "f.conf")
        #expect(file.map(\.key) == ["mail-ttl", "burst", "name"])
        #expect(file[1].source == "f.conf line 4")
        let env = ConfigLayers.environment(["FAKE_BURST": "5", "FAKE_CONFIG": "x", "OTHER": "1"], prefix: "FAKE_", skipping: ["config"])
        #expect(env == [Assignment(key: "burst", value: "5", source: "environment FAKE_BURST")])
        let parsed = try ParsedArguments.parse(["--burst=7", "--config", "f"], flags: table.flags(defaults: FakeConfig()) + [Flag("--config", "FILE", "")])
        let flags = ConfigLayers.flags(parsed, keys: Set(table.keys.map(\.key)))
        var c = FakeConfig()
        try table.apply(ConfigLayers.layered(file: file, environment: env, flags: flags), to: &c)
        #expect(c.ttl == .seconds(7200) && c.burst == 7 && c.name == "file")
    }

    @Test func errorsNameTheKeyTheSourceAndTheForm() throws {
        var c = FakeConfig()
        #expect(throws: UsageError.unknownKey(key: "colour", source: "environment FAKE_COLOUR")) {
            try table.apply(ConfigLayers.environment(["FAKE_COLOUR": "red"], prefix: "FAKE_"), to: &c)
        }
        #expect(throws: UsageError.badValue(key: "mail-ttl", value: "10", source: "f line 1",
                                            expected: "a number with a unit: 250ms, 30s, 10m, 2h or 7d")) {
            try table.apply(try ConfigLayers.parseFile("mail-ttl = 10", path: "f"), to: &c)
        }
        #expect(throws: UsageError.badLine(path: "f", line: 2, reason: "expected `key = value`")) {
            try ConfigLayers.parseFile("burst = 1\nburst 2", path: "f")
        }
    }

    @Test func aMissingFileIsNoSettingsAndAnUnreadableOneAnError() throws {
        #expect(try ConfigLayers.readFile("/nonexistent/dir/x.conf") == nil)
        #expect(throws: UsageError.self) { try ConfigLayers.readFile("/") }  // a directory
        let path = "/tmp/commandlinekit-\(getpid()).conf"
        defer { unlink(path) }
        let f = fopen(path, "w")!
        fputs("burst = 4\n", f)
        fclose(f)
        #expect(try ConfigLayers.readFile(path) == [Assignment(key: "burst", value: "4", source: "\(path) line 1", line: 1)])
    }

    @Test func helpShowsEveryKeyWithItsDefaultAndTheEnvironmentName() {
        let text = table.helpText(defaults: FakeConfig())
        #expect(text.contains("--mail-ttl") && text.contains("(default 1m)") && text.contains("(default 10)"))
        #expect(table.environmentName("mail-ttl") == "FAKE_MAIL_TTL")
        #expect(table.flags(defaults: FakeConfig()).first == Flag("--mail-ttl", "VALUE", repeats: .lastWins, "how long mail lives (default 1m)"))
        #expect(KeyTable<FakeConfig>([], environmentPrefix: nil).environmentName("x") == nil)
    }
}
