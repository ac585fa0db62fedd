import Foundation
import Glibc
import Synchronization
import Testing
@testable import RelayProbe

/// `homebase-relay probe` against a real in-process relay and against nothing.
/// Timeouts are the hang guard (30 s): under `swift test` every target shares one small thread
/// pool, and the probe's stream consumers wait their turn there; nothing here measures speed.
@Suite("probe")
struct ProbeTests {
    /// Runs the command (with the hang guard as its timeout unless one is given); returns
    /// (status, stdout, stderr).
    func probe(_ given: [String]) async -> (Int32, String, String) {
        let args = given.contains { $0.hasPrefix("--timeout") } || given.isEmpty ? given : given + ["--timeout", "30000"]
        let out = Mutex(""), err = Mutex("")
        let status = await ProbeCommand.run(args, out: { s in out.withLock { $0 += s } }, err: { s in err.withLock { $0 += s } })
        return (status, out.withLock { $0 }, err.withLock { $0 })
    }

    @Test func succeedsAgainstARunningRelayAndPrintsTheFourTimes() async throws {
        let relay = try LiveRelay()
        defer { relay.stop() }
        let (status, out, err) = await probe([relay.url])
        #expect(status == 0, "stderr: \(err)")
        #expect(out.hasPrefix("ok ws://127.0.0.1:\(relay.port) auth "))
        for part in ["live round trip ", "mail stored ", "mail delivered "] { #expect(out.contains(part)) }
        #expect(err.isEmpty)
    }

    @Test func reportsTimesInOrder() async throws {
        let relay = try LiveRelay()
        defer { relay.stop() }
        let r = try await RelayProbe.run(ProbeOptions(url: relay.url, timeout: hangGuard))
        #expect(r.auth > .zero && r.liveRoundTrip > .zero)
        // Delivery follows storing (the relay commits before it forwards).
        #expect(r.mailDelivered > .zero)
        #expect(r.origin == "ws://127.0.0.1:\(relay.port)")
    }

    @Test func succeedsOverTLSWithAPin() async throws {
        let cert = try makeCertificate()
        let relay = try LiveRelay(tls: cert)
        defer { relay.stop() }
        let (status, out, err) = await probe([relay.url, "--pin", try pinHex(cert.cert)])
        #expect(status == 0, "stderr: \(err)")
        #expect(out.hasPrefix("ok wss://127.0.0.1:\(relay.port) "))
    }

    @Test func failsWithAClearReasonAgainstADeadURL() async throws {
        let port = try deadPort()
        let (status, out, err) = await probe(["ws://127.0.0.1:\(port)"])
        #expect(status == 1)
        #expect(out.isEmpty)
        #expect(err.hasPrefix("homebase-relay probe: relay unreachable: "))
        #expect(err.filter { $0 == "\n" }.count == 1) // one line
    }

    @Test func failsWhenTheCertificateDoesNotMatchThePin() async throws {
        let cert = try makeCertificate()
        let relay = try LiveRelay(tls: cert)
        defer { relay.stop() }
        let (status, _, err) = await probe([relay.url, "--pin", String(repeating: "ab", count: 32)])
        #expect(status == 1)
        #expect(err.contains("refused the probe"))
        #expect(err.contains("certificate"))
    }

    @Test func aTokenRelayRefusesAWrongTokenAndAdmitsTheRightOne() async throws {
        let dir = try temporaryDirectory("tokens")
        try "probe-token-1\n".write(toFile: dir + "/tokens", atomically: true, encoding: .utf8)
        let relay = try LiveRelay { $0.admission = .token; $0.tokenFile = dir + "/tokens" }
        defer { relay.stop() }
        let (bad, _, err) = await probe([relay.url, "--token", "nope"])
        #expect(bad == 1)
        #expect(err.contains("refused the probe"))
        #expect(!err.contains("nope")) // a token never reaches the output
        let (good, _, err2) = await probe([relay.url, "--token", "probe-token-1"])
        #expect(good == 0, "stderr: \(err2)")
    }

    @Test func usageErrorsExitTwo() async throws {
        #expect(await probe([]).0 == 2)
        #expect(await probe(["ws://127.0.0.1:1", "--timeout", "soon"]).0 == 2)
        #expect(await probe(["http://127.0.0.1:1"]).0 == 2)
        #expect(await probe(["wss://127.0.0.1:1", "--pin", "12"]).0 == 2)
        let (help, out, _) = await probe(["--help"])
        #expect(help == 0)
        #expect(out.contains("usage: homebase-relay probe URL"))
    }

    @Test func parsesFlagsBothWays() throws {
        let o = try ProbeOptions(arguments: ["--timeout=250", "wss://r.example", "--token", "t"])
        #expect(o.url == "wss://r.example")
        #expect(o.timeout == .milliseconds(250))
        #expect(o.token == "t")
        #expect(ms(.microseconds(1234)) == "1.23 ms")
        #expect(ms(.milliseconds(10)) == "10.00 ms")
    }

    /// The admission token from a file only its owner may read, not from an argument.
    @Test func readsTheTokenFromAPrivateFile() throws {
        let path = try temporaryDirectory("probe-token") + "/token"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("s3cret-token \nignored\n".utf8), attributes: [.posixPermissions: 0o600]))
        #expect(try ProbeOptions(arguments: ["ws://127.0.0.1:9", "--token-file", path]).token == "s3cret-token")
        chmod(path, 0o644)
        #expect(throws: ProbeError.self) { try ProbeOptions(arguments: ["ws://127.0.0.1:9", "--token-file", path]) }
    }
}
