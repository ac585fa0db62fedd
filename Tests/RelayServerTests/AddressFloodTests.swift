import Foundation
import Testing
import Wire
@testable import RelayServer

/// The attack as found, at the limits a public relay runs with (RelayLimits' defaults, 10,000
/// connections in all): 10,000 connections from one address (127.0.0.2), held open while they
/// last, and a device from 127.0.0.1 connecting in the middle of the flood still gets in and is
/// served. Bounded: exactly 10,000 connect attempts, loopback only.
@Suite struct AddressFloodTests {
    final class Flood: @unchecked Sendable {  // guarded by lock
        let lock = NSLock()
        var attempts = 0
        var held: [RawSocket] = []
        func add(_ s: RawSocket?) { lock.withLock { attempts += 1; if let s { held.append(s) } } }
        var count: Int { lock.withLock { attempts } }
    }

    @Test func tenThousandConnectionsFromOneAddressDoNotLockOutADevice() throws {
        let h = try RelayHarness { c in
            let metricsPort = c.limits.metricsPort
            c.limits = RelayLimits()  // the defaults, not the tests' lifted ones
            c.limits.metricsPort = metricsPort
            c.maxConnections = RelayConfig().maxConnections
        }
        defer { h.stop() }
        let flood = Flood(), done = DispatchSemaphore(value: 0), port = h.port
        DispatchQueue.global().async {
            for _ in 0..<10_000 { flood.add(try? RawSocket(port: port, from: AddressLimitTests.attacker, receiveTimeout: 5)) }
            done.signal()
        }
        while flood.count < 2_000 { usleep(1_000) }
        let device = try h.device()  // from 127.0.0.1, during the flood
        done.wait()
        try expectStillWorks(device)
        #expect(try h.metric("homebase_relay_connections_refused_total{reason=\"per-address\"}") > 0)
        withExtendedLifetime(flood) {}
    }
}
