@_exported import TestSupport
@testable import RelayServer

// The live relay itself is TestSupport's `LiveRelay` (re-exported for every file of this target).
extension LiveRelay {
    /// Mail frames the relay has seen acknowledged (its `acked` counter).
    func ackedMail() throws -> Int {
        let relay = relay
        return try onLoop(loop) { relay.hub.metrics.mail[.acked, default: 0] }
    }
}
