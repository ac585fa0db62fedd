@testable import HomebaseAgent
@testable import homebase
import CommandLineKit
import Synchronization
import Testing

/// `homebase` over the command-line kit: `--help` on every command, usage errors exit 2 with
/// the usage line, `pair` refuses the other side's flags before it reads a code, the size grammar.
@Suite struct HomebaseCommandLineTests {
    /// What a run printed (test-only capture).
    final class Capture: Sendable {
        let out = Mutex(""), err = Mutex("")
        var output: Output { Output(out: { s in self.out.withLock { $0 += s } }, err: { s in self.err.withLock { $0 += s } }) }
    }

    func run(_ args: [String]) async -> (Int32, String, String) {
        let c = Capture()
        let status = await HomebaseCLI.program.main(["homebase"] + args, environment: ["HOME": "/nonexistent"], output: c.output)
        return (status, c.out.withLock { $0 }, c.err.withLock { $0 })
    }

    @Test func everyCommandAnswersHelp() async {
        for command in HomebaseCLI.program.commands {
            let (status, out, _) = await run([command.name, "--help"])
            #expect(status == 0 && out.contains("Usage: homebase \(command.name)") && out.contains("--data-dir DIR"), "\(command.name)")
        }
        let (_, runHelp, _) = await run(["run", "-h"])
        #expect(runHelp.contains("--max-concurrent VALUE") && runHelp.contains("(default 4)"))
    }

    @Test func usageErrorsExit2WithTheUsageLine() async {
        let (status, _, err) = await run(["status", "--bogus"])
        #expect(status == 2 && err.contains("homebase status: unknown flag --bogus") && err.contains("Usage: homebase status"))
        #expect(await run(["init", "extra"]).0 == 2)
        #expect(await run(["init", "--name"]).0 == 2)
        #expect(await run(["nope"]).0 == 2)
    }

    @Test func aBadSettingValueExits2SayingWhatIsWrong() async throws {
        let dir = try temporaryDirectory("host") + "/host"
        #expect(await run(["--data-dir", dir, "init", "--name", "w"]).0 == 0)
        let (status, _, err) = await run(["--data-dir", dir, "run", "--relay", "ws://127.0.0.1:1",
                                          "--cadence-min-duration", "banana"])
        #expect(status == 2 && err.contains("invalid cadence-min-duration: banana is not a duration"), "\(status) \(err)")
    }

    @Test func pairRefusesTheOtherSidesFlags() async {
        let (issuing, _, e1) = await run(["pair", "--connect-timeout", "5s"])
        #expect(issuing == 2 && e1.contains("--connect-timeout is for joining"))
        let (joining, _, e2) = await run(["pair", "-", "--valid", "10m"])
        #expect(joining == 2 && e2.contains("--valid is for issuing a code"))
    }

    @Test func auditMaxBytesTakesTheOneSizeGrammar() throws {
        var s = Settings()
        s.values = ["relay": "ws://127.0.0.1:1", "audit-max-bytes": "16MiB"]
        #expect(try s.configuration().audit.maxBytes == 16 << 20)
        s.values["audit-max-bytes"] = "10m"
        #expect(try s.configuration().audit.maxBytes == 10_000_000)
    }
}
