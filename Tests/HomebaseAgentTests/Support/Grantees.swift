import Foundation
import Wire
@testable import HomebaseAgent

/// Starts `f` with `count` grantees (each with a grant for `model`, no rate limit), runs `body`
/// with them, then stops them and `f` whether `body` threw or not.
func withGrantees(_ count: Int, of f: HostFixture, model: String,
                  _ body: ([GuestSide]) async throws -> Void) async throws {
    var sides: [GuestSide] = []
    do {
        let store = try f.files.openStore()
        for n in 0..<count {
            let side = try GuestSide(relayURL: f.relay.url, host: f.host, name: "friend\(n)")
            try store.saveGrant(GrantRecord(grantID: .random(), grantee: side.identity.record, models: [model],
                                            createdMs: nowMs()))
            sides.append(side)
        }
        store.close()
        try f.agent.reload()
        try await f.start()
        for side in sides { try await side.start() }
        try await body(sides)
    } catch {
        for side in sides { side.stop() }
        await f.stop()
        throw error
    }
    for side in sides { side.stop() }
    await f.stop()
}
