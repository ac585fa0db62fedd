import Testing
import Wire
@testable import RelayServer

@Suite struct ForwardingTests {
    /// Run over both HubPaths: the same body in memory and over real sockets.
    @Test(arguments: HubPath.allCases) func liveFrameIsForwardedWithSenderAndZeroHeld(via path: HubPath) throws {
        let h = try RelayHarness(via: path)
        defer { h.stop() }
        let a = try h.device(), b = try h.device()
        #expect(try a.next() == .queueEmpty)
        #expect(try b.next() == .queueEmpty)
        let id = frameID()
        a.live(to: b.key!.publicKey, id: id, Array(repeating: 9, count: 1000))
        guard case .receive(let r) = try b.next() else { Issue.record("nothing forwarded"); return }
        #expect(r.sender == a.key!.publicKey)
        #expect(r.frameID == id)
        #expect(r.deliveryClass == .live)
        #expect(r.heldMs == 0)
        #expect(r.sealed == Array(repeating: 9, count: 1000))
    }

    /// Run over both HubPaths: the same body in memory and over real sockets.
    @Test(arguments: HubPath.allCases) func liveFrameToOfflineKeyGetsNotHere(via path: HubPath) throws {
        let h = try RelayHarness(via: path)
        defer { h.stop() }
        let a = try h.device()
        #expect(try a.next() == .queueEmpty)
        let id = frameID()
        a.live(to: SigningKeyBox().publicKey, id: id, [1, 2, 3])
        #expect(try a.next() == .notHere(frameID: id))
        #expect(try h.metric("homebase_relay_not_here_total") == 1)
    }

    /// Run over both HubPaths: the same body in memory and over real sockets.
    @Test(arguments: HubPath.allCases) func newerConnectionReplacesOlder(via path: HubPath) throws {
        let h = try RelayHarness(via: path)
        defer { h.stop() }
        let key = SigningKeyBox()
        let old = try h.device(key)
        #expect(try old.next() == .queueEmpty)
        let new = try h.device(key)
        let (frames, _) = try old.untilClosed()
        #expect(frames.contains { if case .error(let e) = $0 { e.code == .replaced } else { false } })
        // Frames for the key now reach the new connection.
        #expect(try new.next() == .queueEmpty)
        let sender = try h.device()
        #expect(try sender.next() == .queueEmpty)
        sender.live(to: key.publicKey, id: frameID(), [5])
        guard case .receive = try new.next() else { Issue.record("new connection not routed"); return }
        #expect(try h.metric("homebase_relay_connections_replaced_total") == 1)
    }

    /// Run over both HubPaths: the same body in memory and over real sockets.
    @Test(arguments: HubPath.allCases) func rateLimitClosesTheFloodingConnectionOnly(via path: HubPath) throws {
        let h = try RelayHarness(via: path) { $0.rate = 1; $0.burst = 5 }
        defer { h.stop() }
        let flooder = try h.device(), calm = try h.device()
        for _ in 0..<20 { flooder.send(.ping(1)) }
        let (frames, _) = try flooder.untilClosed()
        #expect(frames.contains { if case .error(let e) = $0 { e.code == .rateLimited } else { false } })
        try expectStillWorks(calm)
    }

    /// Run over both HubPaths: the same body in memory and over real sockets.
    @Test(arguments: HubPath.allCases) func relaySentFrameTypesFromADeviceAreViolations(via path: HubPath) throws {
        let h = try RelayHarness(via: path)
        defer { h.stop() }
        let c = try h.device()
        c.send(.stored(frameID: frameID()))
        let (frames, _) = try c.untilClosed()
        #expect(frames.contains { if case .error(let e) = $0 { e.code == .protocolViolation } else { false } })
    }

    /// Run over both HubPaths: the same body in memory and over real sockets.
    @Test(arguments: HubPath.allCases) func unknownFrameTypesAreSkipped(via path: HubPath) throws {
        let h = try RelayHarness(via: path)
        defer { h.stop() }
        let c = try h.device()
        c.sendRaw([0x7E, 0, 0, 0, 0, 2, 1, 2])
        try expectStillWorks(c)
    }
}

@Suite struct EndpointTests {
    @Test func healthzAndMetricsAnswerOverPlainHTTP() throws {
        let h = try RelayHarness()
        defer { h.stop() }
        let (status, body) = try h.get("/healthz")
        #expect(status == "HTTP/1.1 200 OK")
        #expect(body == "ok\n")
        _ = try h.device()
        let (mstatus, metrics) = try h.get("/metrics")
        #expect(mstatus == "HTTP/1.1 200 OK")
        #expect(metrics.contains("# TYPE homebase_relay_connections gauge"))
        #expect(try h.metric("homebase_relay_connections{state=\"authenticated\"}") == 1)
        #expect(try h.get("/nope").0 == "HTTP/1.1 404 Not Found")
    }
}
