@testable import HomebaseAgent
@testable import homebase
import Testing

/// #21's flags and settings: a bad `--tokens` is a usage error (exit 2) before anything is
/// stored; `runtime-limit` and the audit keys read, and a bad value names what it takes.
@Suite struct HouseFlagsTests {
    @Test func aBadTokenBudgetIsAUsageError() async throws {
        let files = try StoreAndCLITests().initialized()
        let env = ["HOME": "/nonexistent"]
        for bad in ["lots", "200k", "0/day", "5/week"] {
            #expect(await HomebaseCLI.main(["homebase", "--data-dir", files.dataDir, "share", "--relay", "ws://127.0.0.1:1",
                                            "--models", "m", "--tokens", bad], environment: env) == 2)
        }
        #expect(try files.openSharing().invites().isEmpty)
        #expect(await HomebaseCLI.main(["homebase", "--data-dir", files.dataDir, "share", "--relay", "ws://127.0.0.1:1",
                                        "--models", "m", "--tokens", "200k/day"], environment: env) == 0)
        #expect(try files.openSharing().invites().first?.budget == TokenBudget(tokens: 200_000, period: .day))
        #expect(await HomebaseCLI.main(["homebase", "--data-dir", files.dataDir, "grants", "usage", "--json"], environment: env) == 0)
    }

    @Test func runtimeLimitAndAuditSettingsRead() throws {
        var s = Settings()
        s.values = ["relay": "ws://127.0.0.1:1", "runtime-limit": "http://a=2,1", "audit-own": "on", "audit-grants": "off",
                    "audit-max-bytes": "5m"]
        let c = try s.configuration()
        #expect(c.runtimeLimits == RuntimeLimits(all: 1, byURL: ["http://a": 2]))
        #expect(c.audit.own && !c.audit.grants && c.audit.maxBytes == 5_000_000)
        for (key, bad) in [("runtime-limit", "many"), ("audit-own", "yes"), ("audit-max-bytes", "12")] {
            var t = Settings()
            t.values = ["relay": "ws://127.0.0.1:1", key: bad]
            #expect(throws: HomebaseError.self) { try t.configuration() }
        }
    }
}
