@testable import HomebaseAgent
import RelayRouting
import Testing

/// The Homebase's own engine limits sit inside the guest's watchdog rungs, with their defaults:
/// an engine that hangs or stalls then reaches the guest as our `host_error` before its rung
/// fires. Keep-alive chunks restart the guest's rungs, so a limit above a rung would hold the
/// guest past the ladder the routing contract promises.
struct LadderOrderTests {
    let host = try! HomebaseAgent.Configuration(relayURL: "ws://127.0.0.1:1")
    let guest = WatchdogLimits()

    @Test func theEngineFirstByteLimitIsBelowTheGuestsFirstOutputRung() {
        #expect(host.engineTimeouts.firstByte < guest.firstOutput)
    }

    @Test func theEngineSilenceLimitIsBelowTheGuestsStallRung() {
        #expect(host.engineTimeouts.idle < guest.stall)
    }

    @Test func keepAlivesComeWellInsideEitherRung() {
        #expect(host.keepAliveInterval < guest.stall)
        #expect(host.keepAliveInterval < guest.firstOutput)
    }
}
