import CommandLineKit
@testable import guest
@testable import LocalAPI
import Synchronization
import Testing

/// `guest serve`'s flags as the guest program reads them: its durations in the kit's grammar, the
/// loopback-and-token rule, usage errors (exit 2) that say the fix, the help's doors.
@Suite struct ServeFlagsTests {
    /// What a run printed on each stream.
    final class Printout: Sendable {
        private let streams = Mutex((out: "", err: ""))
        var output: Output {
            Output(out: { s in self.streams.withLock { $0.out += s } }, err: { s in self.streams.withLock { $0.err += s } })
        }
        var text: (out: String, err: String) { streams.withLock { $0 } }
    }

    static let environment = ["HOME": "/nonexistent"]

    /// `guest serve ARGS` parsed against serve's flags, not run.
    func call(_ args: [String], environment: [String: String] = Self.environment) throws -> Invocation {
        guard case .run(let call) = GuestCLI.program.resolve(["guest", "serve"] + args, environment: environment,
                                                             output: Printout().output) else {
            throw SetupError("guest serve \(args) did not parse")
        }
        return call
    }

    /// Runs `guest serve ARGS` on a data directory that cannot be made: a line serve accepts
    /// fails there (exit 1) instead of serving, so only a refused one exits 2.
    func run(_ args: [String]) async -> (status: Int32, out: String, err: String) {
        let printed = Printout()
        let status = await GuestCLI.program.main(["guest", "serve", "--data-dir", "/dev/null/guest"] + args,
                                                 environment: Self.environment, output: printed.output)
        return (status, printed.text.out, printed.text.err)
    }

    @Test func everyDurationFlagTakesTheKitsGrammar() throws {
        // Each of these was plain seconds (or refused): the units are new, a bare whole number is still seconds.
        #expect(try ServeCommandLine.configuration(call(["--keep-alive-interval", "250ms"])).keepAliveInterval == .milliseconds(250))
        #expect(try ServeCommandLine.configuration(call(["--keep-alive-interval", "2"])).keepAliveInterval == .seconds(2))
        #expect(try ServeCommandLine.configuration(call(["--keep-alive-interval", "0s"])).keepAliveInterval == nil)
        #expect(try ServeCommandLine.configuration(call([])).keepAliveInterval == ServeConfiguration.defaultKeepAliveInterval)
        #expect(try ServeCommandLine.embeddingTimeout(call(["--embedding-timeout", "1500ms"])) == .milliseconds(1500))
        #expect(try ServeCommandLine.embeddingTimeout(call(["--embedding-timeout", "20"])) == .seconds(20))
        #expect(try ServeCommandLine.warmCheck(call(["--warm-check", "2m"])) == .seconds(120))
        #expect(try ServeCommandLine.warmCheck(call([])) == .seconds(30))
        #expect(try ServeCommandLine.statusInterval(call(["--status-interval", "200ms"])) == .milliseconds(200))
        #expect(try ServeCommandLine.statusInterval(call([])) == .seconds(2))
    }

    @Test func aNumberTheGrammarRefusesExits2SayingWhatToWrite() async {
        for (flag, value, fix) in [("--status-interval", "0.2", "write 200ms"), ("--keep-alive-interval", "2.5", "write 2500ms"),
                                   ("--embedding-timeout", "1.5m", "write 90s"), ("--warm-check", "30.0", "write 30s")] {
            let r = await run([flag, value])
            #expect(r.status == 2 && r.err.contains("guest serve: \(flag) takes a duration: 250ms, 30s") && r.err.contains("(got \"\(value)\": \(fix))")
                    && r.err.contains("Usage: guest serve"), "\(r.err)")
        }
        let soon = await run(["--keep-alive-interval", "soon"])
        #expect(soon.status == 2 && soon.err.contains("(got \"soon\")\n"), "\(soon.err)")
        let long = await run(["--warm-check", "2h"])
        #expect(long.status == 2 && long.err.contains("--warm-check takes a duration from 0 to 1h (got 2h)"), "\(long.err)")
        let short = await run(["--embedding-timeout", "500ms"])
        #expect(short.status == 2 && short.err.contains("--embedding-timeout takes a duration from 1s to 1h"), "\(short.err)")
    }

    @Test func aNonLoopbackListenNeedsAllowRemoteAndAToken() async throws {
        let refused = await run(["--listen", "0.0.0.0:1"])
        #expect(refused.status == 2 && refused.err.contains("0.0.0.0 is not a loopback address"), "\(refused.err)")
        #expect(await run(["--listen", "0.0.0.0:1", "--allow-remote"]).status == 2)
        let env = try ServeCommandLine.configuration(call(["--listen", "0.0.0.0:9", "--allow-remote"],
                                                          environment: ["HOMEBASE_SERVE_TOKEN": "e"]))
        #expect(env.host == "0.0.0.0" && env.port == 9 && env.token == "e")
        let local = try ServeCommandLine.configuration(call([]))
        #expect(local.host == "127.0.0.1" && local.port == ServeConfiguration.defaultPort && local.token == nil)
        #expect(try ServeCommandLine.configuration(call(["--listen", "[::1]:7"])).host == "::1")
        #expect(throws: UsageError.self) { try ServeCommandLine.configuration(call(["--listen", "localhost"])) }
        #expect(throws: UsageError.self) { try ServeCommandLine.configuration(call(["--allow-origin", "http://x/path"])) }
        let bogus = await run(["--bogus"])
        #expect(bogus.status == 2 && bogus.err.contains("guest serve: unknown flag --bogus"), "\(bogus.err)")
    }

    @Test func helpNamesTheDoorsAndTheDurationForm() async {
        let help = await run(["--help"])
        #expect(help.status == 0)
        for door in ["/v1/responses", "/v1/messages", "/v1/messages/count_tokens", "/v1/completions", "/v1/models/{id}",
                     "/api/generate", "/api/show", "/api/ps", "/api/version", "--allow-remote"] {
            #expect(help.out.contains(door), "\(door)")
        }
        for flag in ["--keep-alive-interval TIME", "--embedding-timeout TIME", "--warm-check TIME", "--status-interval TIME"] {
            #expect(help.out.contains(flag), "\(flag)")
        }
        #expect(help.out.contains("0: none (default 5s)"))
    }
}
