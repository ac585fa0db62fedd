import Courier
import Foundation
import PeerLink
import Sealing
import Signing
import Testing
import Wire
@testable import HomebaseAgent

// Issue 15, hole 13, against the real agent: a restarted Homebase (a new process on the same
// data directory) refuses a recorded envelope its previous run accepted.
@Suite(.serialized) struct ReplayRestartTests {
    @Test func aRestartedHomebaseRefusesARecordedRequestItServedBefore() async throws {
        try await HostFixture.with(runtime: (try ScriptedEngine.url("ok"), ["scripted"])) { f in
            let body = try AppMessage.request(request("scripted", inline: true)).encode()
            let recorded = try Envelope.seal(body: body, from: f.guest.identity, to: f.host, now: UInt64(nowMs())).bytes
            #expect(await f.guest.courier.link.sendLive(to: f.host.signingKey, payload: recorded) == .sent)
            try await eventually("the first run opened it") { f.agent.courier.stats.opened == 1 }
            await f.agent.stop()

            let again = try HomebaseAgent(configuration: f.agent.configuration, files: f.files)
            again.start()
            try await eventually("the second run is connected") { again.courier.link.state.isConnected }
            try await eventually("the recorded request was delivered again and handled") {
                if again.courier.stats.opened + again.courier.stats.replays > 0 { return true }
                _ = await f.guest.courier.link.sendLive(to: f.host.signingKey, payload: recorded)
                return false
            }
            #expect(again.courier.stats.replays >= 1 && again.courier.stats.opened == 0)
            await again.stop()
            #expect(FileManager.default.fileExists(atPath: f.files.replayStorePath))
        }
    }
}
