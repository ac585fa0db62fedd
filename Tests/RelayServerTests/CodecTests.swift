import Testing
import Wire
@testable import RelayServer

@Suite struct SendViewTests {
    /// The in-place check must accept and reject exactly what `RelayFrame.decode` does.
    @Test func agreesWithTheWireDecoderOnMutatedSends() throws {
        let base = try RelayFrame.send(.init(recipient: .repeating(1), deliveryClass: .mail, frameID: .repeating(2),
                                             ttlSeconds: 60, collapseKey: [7, 7], sealed: [1, 2, 3, 4])).encode()
        var inputs: [[UInt8]] = [base, Array(base.dropLast()), base + [0], Array(base.prefix(10))]
        for i in 0..<base.count { var m = base; m[i] ^= 0xFF; inputs.append(m) }
        for i in 0..<base.count { var m = base; m[i] = 0; inputs.append(m) }
        var live = base; live[6 + 32] = 1 // live with a collapse key
        inputs.append(live)
        for m in inputs where m.first == SendView.typeCode {
            let viaWire = Result { () throws(WireError) in try RelayFrame.decode(m) }
            let viaView = Result { () throws(WireError) in try SendView.parse(m) }
            switch (viaWire, viaView) {
            case (.success(.send(let s)), .success(let v)):
                #expect(s.recipient == v.recipient && s.frameID == v.frameID && s.ttlSeconds == v.ttlSeconds)
                #expect(s.deliveryClass == v.deliveryClass)
                #expect(s.collapseKey == Array(m[v.collapseKey]) && s.sealed == Array(m[v.sealed]))
            case (.failure(let a), .failure(let b)):
                #expect(a == b)
            default:
                Issue.record("decoders disagree on \(m)")
            }
        }
    }

    @Test func receiveIsBuiltLikeTheWireEncoder() throws {
        let r = RelayFrame.Receive(sender: .repeating(3), deliveryClass: .live, frameID: .repeating(4), heldMs: 123_456, sealed: [9, 8, 7])
        let built = ForwardCodec.receive(sender: r.sender, deliveryClass: r.deliveryClass, frameID: r.frameID,
                                         heldMs: r.heldMs, sealed: [9, 8, 7][...])
        #expect(built == (try RelayFrame.receive(r).encode()))
        // The live path's header then the sealed slice: the same bytes.
        let head = ForwardCodec.receiveHeader(sender: r.sender, deliveryClass: r.deliveryClass, frameID: r.frameID,
                                              heldMs: r.heldMs, sealedCount: 3)
        #expect(head + [9, 8, 7] == built)
    }
}

@Suite struct QueueAndBucketTests {
    @Test func sendQueueBoundsFramesAndBytesButForcesMarkers() {
        var q = SendQueue(maxFrames: 2, maxBytes: 10)
        let pushes = [q.push([1, 2, 3]), q.push(Array(repeating: 0, count: 8)), q.push([4]), q.push([5]), q.push([6], force: true)]
        #expect(pushes == [true, false, true, false, true]) // bytes cap, then frames cap, then a forced marker
        #expect(q.count == 3 && q.bytes == 5)
        let popped = [q.pop(), q.pop(), q.pop(), q.pop()]
        #expect(popped == [[1, 2, 3], [4], [6], nil])
        #expect(q.bytes == 0)
    }

    @Test func tokenBucketAllowsBurstThenRefills() {
        var b = TokenBucket(burst: 3, now: 0)
        var taken: [Bool] = []
        for _ in 0..<4 { taken.append(b.take(now: 0, rate: 10, burst: 3)) }
        #expect(taken == [true, true, true, false])
        let refilled = b.take(now: 100_000_000, rate: 10, burst: 3) // 0.1 s at 10/s: one token back
        let again = b.take(now: 100_000_000, rate: 10, burst: 3)
        #expect(refilled && !again)
    }
}

@Suite struct ConfigTests {
    @Test func valuesParseWithUnits() {
        #expect(ValueParsing.duration("250ms") == .milliseconds(250))
        #expect(ValueParsing.duration("7d") == .seconds(7 * 86_400))
        #expect(ValueParsing.duration("10") == nil)
        #expect(ValueParsing.duration("s") == nil)
        #expect(ValueParsing.size("64MiB") == 64 << 20)
        #expect(ValueParsing.size("4096") == 4096)
        #expect(ValueParsing.size("4 KiB") == nil)
        #expect(ValueParsing.listen("[::1]:8080")! == ("::1", 8080))
        #expect(ValueParsing.listen(":443")! == ("0.0.0.0", 443))
    }

    @Test func fileThenEnvironmentThenFlags() throws {
        let dir = try temporaryDirectory("relay")
        let file = dir + "/relay.conf"
        try "rate = 10 # comment\nburst = 20\nmail-ttl = 1d\n".write(toFile: file, atomically: true, encoding: .utf8)
        let c = try ConfigLoader.load(arguments: ["--config", file, "--burst=30"],
                                      environment: ["HOMEBASE_RELAY_RATE": "15", "HOMEBASE_RELAY_BURST": "25", "PATH": "/bin"])
        #expect(c.rate == 15)
        #expect(c.burst == 30)
        #expect(c.mailTTL == .seconds(86_400))
    }

    @Test func errorsNameTheKeyAndSource() throws {
        #expect(throws: RelayError.badValue(key: "rate", value: "fast", source: "flag --rate", expected: "a positive number")) {
            try ConfigLoader.load(arguments: ["--rate", "fast"], environment: [:])
        }
        #expect(throws: RelayError.unknownKey(key: "colour", source: "environment HOMEBASE_RELAY_COLOUR")) {
            try ConfigLoader.load(arguments: [], environment: ["HOMEBASE_RELAY_COLOUR": "red"])
        }
        #expect(throws: RelayError.missingValue(key: "listen")) { try ConfigLoader.load(arguments: ["--listen"], environment: [:]) }
        #expect(throws: (any Error).self) { try ConfigLoader.load(arguments: ["--tls-cert", "/x"], environment: [:]) }
        #expect(RelayError.unknownKey(key: "x", source: "y").exitCode == 2)
    }

    @Test func originIsDerivedFromListenAndTLS() {
        var c = RelayConfig()
        c.listenHost = "0.0.0.0"; c.listenPort = 443
        #expect(c.effectiveOrigin == "ws://0.0.0.0:443")
        c.tlsCert = "/c"; c.tlsKey = "/k"
        #expect(c.effectiveOrigin == "wss://0.0.0.0:443")
        c.origin = "wss://relay.example.com"
        #expect(c.effectiveOrigin == "wss://relay.example.com")
    }
}
