import Testing
import TestSupport

/// TestSupport's `freePort()`, which every process test starts its children on: a port it hands
/// out twice would put two children (a relay and its engine) on one port (a FaultSuite run failed
/// so: the engine could not bind, `runtime add` reached the relay).
@Suite struct FreePortTests {
    @Test func neverHandsOutTheSamePortTwice() throws {
        // bind(0) then close gives a just-closed port again often enough (7 repeats in 500 here).
        let ports = try (0..<1000).map { _ in try freePort() }
        #expect(Set(ports).count == ports.count)
    }

    @Test func aHandedOutPortIsFreeToBind() throws {
        let port = try freePort()
        #expect(!canConnect(port))
    }
}
