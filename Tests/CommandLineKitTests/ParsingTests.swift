import CommandLineKit
import Testing

/// The flag parser every program shares: forms, positionals, and each usage error.
@Suite struct ParsingTests {
    let flags = [Flag("--json", "as JSON"), Flag("--name", "NAME", "a name"),
                 Flag("--allow-dir", "DIR", repeatable: true, "a dir"),
                 Flag("--rate", "VALUE", repeats: .lastWins, "a key-table flag"), Flag.help]

    @Test func formsAndPositionals() throws {
        let p = try ParsedArguments.parse(["list", "--json", "--name=x", "-", "--allow-dir", "a", "--allow-dir=b", "--", "--json"],
                                          flags: flags)
        #expect(p.has("--json") && p.value("--name") == "x")
        #expect(p.all("--allow-dir") == ["a", "b"])
        #expect(p.positionals == ["list", "-", "--json"])
        #expect(p.ordered.map(\.key) == ["name", "allow-dir", "allow-dir"])
        #expect(p.ordered.first?.source == "flag --name")
    }

    @Test func aValueMayHoldAnEqualsSignAndBeEmpty() throws {
        #expect(try ParsedArguments.parse(["--name=a=b"], flags: flags).value("--name") == "a=b")
        #expect(try ParsedArguments.parse(["--name="], flags: flags).value("--name") == "")
        #expect(try ParsedArguments.parse(["--name", "--json"], flags: flags).value("--name") == "--json")
    }

    @Test func dashHIsHelp() throws {
        #expect(try ParsedArguments.parse(["-h"], flags: flags).has("--help"))
    }

    @Test func eachUsageError() {
        #expect(throws: UsageError.unknownFlag("--nope")) { try ParsedArguments.parse(["--nope"], flags: flags) }
        #expect(throws: UsageError.unknownFlag("-x")) { try ParsedArguments.parse(["-x"], flags: flags) }
        #expect(throws: UsageError.unknownFlag("--nope")) { try ParsedArguments.parse(["--nope=1"], flags: flags) }
        #expect(throws: UsageError.takesNoValue(flag: "--json")) { try ParsedArguments.parse(["--json=1"], flags: flags) }
        #expect(throws: UsageError.needsValue(flag: "--name", placeholder: "NAME")) {
            try ParsedArguments.parse(["--name"], flags: flags)
        }
        #expect(throws: UsageError.givenTwice(flag: "--name")) { try ParsedArguments.parse(["--name", "a", "--name=b"], flags: flags) }
    }

    @Test func aKeyTableFlagMayComeAgainAndTheLastWins() throws {
        let p = try ParsedArguments.parse(["--rate", "1", "--rate=2"], flags: flags)
        #expect(p.value("--rate") == "2" && p.all("--rate") == ["2"])
        #expect(p.ordered.map(\.value) == ["1", "2"])
    }

    @Test func messagesSayHowToFix() {
        #expect(UsageError.needsValue(flag: "--name", placeholder: "NAME").description == "--name needs a value: --name NAME or --name=NAME")
        #expect(UsageError.givenTwice(flag: "--name").description.contains("give it once"))
        #expect(UsageError.badValue(key: "rate", value: "fast", source: "flag --rate", expected: "a positive number").description
                == "rate: \"fast\" (from flag --rate) is not valid: expected a positive number")
    }

    @Test func typedReadsNameTheFlagAndTheForm() throws {
        let fl = [Flag("--wait", "TIME", ""), Flag("--tries", "N", ""), Flag("--max", "SIZE", "")]
        let p = try ParsedArguments.parse(["--wait", "90s", "--tries", "3", "--max", "64KiB"], flags: fl)
        #expect(try p.duration("--wait") == .seconds(90))
        #expect(try p.duration("--absent") == nil)
        #expect(try p.integer("--tries", in: 1...100) == 3)
        #expect(try p.size("--max") == 65_536)
        let bad = try ParsedArguments.parse(["--wait", "soon", "--tries", "0", "--max", "lots"], flags: fl)
        #expect(throws: UsageError.self) { try bad.duration("--wait") }
        #expect(throws: UsageError.self) { try bad.integer("--tries", in: 1...100) }
        #expect(throws: UsageError.self) { try bad.size("--max") }
        do { _ = try bad.duration("--wait"); Issue.record("no error") } catch {
            #expect(error.description.contains("--wait takes a duration") && error.description.contains("\"soon\""))
        }
        let zero = try ParsedArguments.parse(["--wait", "0s"], flags: fl)
        #expect(try zero.duration("--wait") == .zero)
        #expect(throws: UsageError.self) { try zero.duration("--wait", above: .zero) }
        #expect(throws: UsageError.self) {
            try ParsedArguments.parse(["--wait", "10"], flags: fl).duration("--wait", bare: .refused)
        }
    }
}
