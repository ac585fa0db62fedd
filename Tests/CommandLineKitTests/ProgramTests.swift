import CommandLineKit
import Synchronization
import Testing

/// Dispatch, `--help` on every command, exit statuses, global flags on both sides of the command.
@Suite struct ProgramTests {
    /// What a run printed (test-only capture).
    final class Capture: Sendable {
        let out = Mutex(""), err = Mutex("")
        var output: Output { Output(out: { s in self.out.withLock { $0 += s } }, err: { s in self.err.withLock { $0 += s } }) }
    }

    struct Failed: Error, CustomStringConvertible { var description: String { "the disk is full" } }

    let program = Program(
        name: "tool", summary: "a test tool",
        globalFlags: [Flag("--data-dir", "DIR", "where")],
        commands: [
            Command(name: "show", summary: "prints its arguments", usage: "[--json] [WORD]", details: "Shows things.",
                    flags: [Flag("--json", "as JSON")]) { call in
                call.output.out("dir=\(call.arguments.value("--data-dir") ?? "-") json=\(call.arguments.has("--json")) \(call.positionals)\n")
                return 0
            },
            Command(name: "strict", summary: "refuses", usage: "", flags: []) { call in throw call.usageError("say it differently") },
            Command(name: "fail", summary: "fails", usage: "", flags: []) { _ in throw Failed() },
            Command(name: "version", summary: "prints the version", usage: "", flags: [], blocking: { call in
                call.output.out("tool 1\n"); return 0
            }),
            Command(name: "raw", summary: "its own parser", usage: "ARGS", flags: [], rawArguments: true) { call in
                call.output.out("\(call.positionals)\n"); return 0
            },
        ])

    func run(_ args: String...) async -> (Int32, String, String) {
        let c = Capture()
        let status = await program.main(["tool"] + args, environment: [:], output: c.output)
        return (status, c.out.withLock { $0 }, c.err.withLock { $0 })
    }

    @Test func globalFlagsGoBeforeOrAfterTheCommand() async {
        #expect(await run("--data-dir", "/d", "show", "--json", "w").1 == "dir=/d json=true [\"w\"]\n")
        #expect(await run("show", "--data-dir=/e").1 == "dir=/e json=false []\n")
        #expect(await run("--data-dir", "/d", "show", "--data-dir", "/e").0 == 2)  // given twice
    }

    @Test func helpOnEveryCommandAndTheOverview() async {
        for name in ["show", "strict", "fail"] {
            let (status, out, _) = await run(name, "--help")
            #expect(status == 0 && out.hasPrefix("tool \(name): ") && out.contains("Usage: tool \(name)") && out.contains("--data-dir DIR"))
        }
        let (status, out, _) = await run("--help")
        #expect(status == 0 && out.contains("show") && out.contains("prints its arguments"))
        #expect(await run().0 == 2)
    }

    @Test func usageErrorsExit2WithWhatIsWrongAndTheUsage() async {
        let (s1, _, e1) = await run("show", "--bogus")
        #expect(s1 == 2 && e1.contains("tool show: unknown flag --bogus") && e1.contains("Usage: tool show [--json] [WORD]")
                && e1.contains("tool show --help"))
        let (s2, _, e2) = await run("nope")
        #expect(s2 == 2 && e2.contains("unknown command nope; commands: show, strict, fail, version, raw"))
        let (s3, _, e3) = await run("--frobnicate")
        #expect(s3 == 2 && e3.contains("unknown flag --frobnicate"))
        let (s4, _, e4) = await run("strict")
        #expect(s4 == 2 && e4.contains("tool strict: say it differently"))
    }

    @Test func otherFailuresExit1() async {
        let (status, _, err) = await run("fail")
        #expect(status == 1 && err == "tool fail: the disk is full\n")
    }

    @Test func versionAsAFlagAndBlockingCommands() async {
        #expect(await run("--version") == (0, "tool 1\n", ""))
        let c = Capture()
        #expect(program.mainBlocking(["tool", "version"], environment: [:], output: c.output) == 0)
        #expect(c.out.withLock { $0 } == "tool 1\n")
        #expect(program.mainBlocking(["tool", "version", "--nope"], environment: [:], output: c.output) == 2)
    }

    @Test func aRawCommandGetsItsWordsUntouched() async {
        #expect(await run("raw", "--x", "-h", "y").1 == "[\"--x\", \"-h\", \"y\"]\n")
    }
}
