import Foundation
import Testing
@testable import Transport

/// One end of two TLS sessions joined in memory (no socket): what it writes collects in `wire`.
private final class End {
    let session: TLSSession
    private let out: UnsafeMutableRawBufferPointer
    private let plain = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    var wire: [UInt8] = []
    var received: [UInt8] = []
    var drains = 0
    var closed = false

    init(_ s: TLSSession, outputSize: Int) {
        session = s
        out = .allocate(byteCount: outputSize, alignment: 16)
        s.setOutput(out)
    }

    deinit { out.deallocate(); plain.deallocate() }

    func drain() {
        wire += session.output
        session.clearOutput()
        drains += 1
    }

    /// What `Connection.readOnce` does with one read's bytes; true when OpenSSL read them all.
    func read(_ ciphertext: [UInt8]) throws -> Bool {
        try ciphertext.withUnsafeBytes { p in
            try session.withInput(p) {
                if !session.established {
                    let r = session.handshake { drain() }
                    drain()
                    if case .failed(let e) = r { throw e }
                }
                while session.established {
                    switch session.read(into: plain, drain: { drain() }) {
                    case .bytes(let n): received += plain[0..<n]
                    case .needMore: drain(); return session.unreadInput == 0
                    case .closed: closed = true; return session.unreadInput == 0
                    case .failed(let e): throw e
                    }
                }
                return session.unreadInput == 0
            }
        }
    }
}

@Suite struct TLSSessionTests {
    /// Client and server sessions, output buffers of `outputSize` bytes each.
    /// `own`: the server hands over to its own record layer after the handshake.
    private func pair(outputSize: Int, own: Bool = false) throws -> (End, End) {
        let dir = try temporaryDirectory("transport")
        let c = try makeCertificate(in: dir, name: "s")
        let server = try TLSServerContext(certificateFile: c.cert, keyFile: c.key, recordLayer: own ? .own : .openssl).makeSession()
        if own { server.ciphers = AEADContexts() }
        let client = try TLSClientContext(trust: .pinnedSHA256(TLSClientContext.fingerprint(ofPEMFile: c.cert)))
            .makeSession(serverName: "localhost")
        return (End(client, outputSize: outputSize), End(server, outputSize: outputSize))
    }

    /// Moves `from`'s ciphertext to `to` in reads of `chunk` bytes; each read is read whole.
    private func deliver(_ from: End, _ to: End, chunk: Int) throws {
        let bytes = from.wire
        from.wire = []
        var i = 0
        while i < bytes.count {
            let allRead = try to.read(Array(bytes[i..<min(i + chunk, bytes.count)]))
            #expect(allRead, "ciphertext left unread after a read of \(chunk) bytes")
            i += chunk
        }
    }

    private func handshake(_ client: End, _ server: End, chunk: Int) throws {
        #expect(client.session.handshake { client.drain() } == .inProgress)
        client.drain()
        for _ in 0..<10 where !(client.session.established && server.session.established && client.wire.isEmpty && server.wire.isEmpty) {
            try deliver(client, server, chunk: chunk)
            try deliver(server, client, chunk: chunk)
        }
        #expect(client.session.established && server.session.established)
    }

    /// OpenSSL reads the ciphertext where it lies: whatever the split of the reads (one byte, a
    /// record header cut in two, several records at once), every read is consumed whole, a record
    /// cut across reads waits in OpenSSL, and the plaintext arrives intact both ways.
    @Test(arguments: [1, 3, 5, 700, 16_389, 70_000], [false, true])
    func everySplitOfTheCiphertextIsReadWhole(chunk: Int, own: Bool) throws {
        let (client, server) = try pair(outputSize: 64 * 1024, own: own)
        try handshake(client, server, chunk: chunk)
        #expect(server.session.usesOwnRecordLayer == own)
        let message = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        #expect(message.withUnsafeBytes { client.session.write($0) { client.drain() } } == nil)
        client.drain()
        try deliver(client, server, chunk: chunk)
        #expect(server.received == message)
        let answer = Array(message.prefix(1_000).reversed())
        #expect(answer.withUnsafeBytes { server.session.write($0) { server.drain() } } == nil)
        server.drain()
        try deliver(server, client, chunk: chunk)
        #expect(client.received == answer)
    }

    /// An output buffer smaller than a handshake flight or a record: OpenSSL waits on it, the
    /// session drains it and carries on, and no byte is lost or reordered.
    @Test(arguments: [false, true])
    func anOutputSmallerThanARecordIsDrainedAndNothingIsLost(own: Bool) throws {
        let (client, server) = try pair(outputSize: 100, own: own)
        try handshake(client, server, chunk: 4096)
        #expect(server.session.usesOwnRecordLayer == own)
        #expect(server.drains > 3, "the server's flight (certificate and all) is larger than 100 bytes")
        let message = (0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let before = client.drains
        #expect(message.withUnsafeBytes { client.session.write($0) { client.drain() } } == nil)
        client.drain()
        #expect(client.drains - before > 500)
        try deliver(client, server, chunk: 64 * 1024)
        #expect(server.received == message)
        // The other way: the own layer seals records small enough for the 100-byte output.
        let answer = Array(message.prefix(3_000))
        #expect(answer.withUnsafeBytes { server.session.write($0) { server.drain() } } == nil)
        server.drain()
        try deliver(server, client, chunk: 64 * 1024)
        #expect(client.received == answer)
    }

    /// close_notify goes through the same output and ends the peer's reads, both ways.
    @Test(arguments: [false, true])
    func shutdownReachesThePeer(own: Bool) throws {
        let (client, server) = try pair(outputSize: 64 * 1024, own: own)
        try handshake(client, server, chunk: 64 * 1024)
        client.session.shutdown()
        client.drain()
        try deliver(client, server, chunk: 64 * 1024)
        #expect(server.closed)
        let (c2, s2) = try pair(outputSize: 64 * 1024, own: own)
        try handshake(c2, s2, chunk: 64 * 1024)
        s2.session.shutdown()
        s2.drain()
        try deliver(s2, c2, chunk: 64 * 1024)
        #expect(c2.closed)
    }

    /// A client's KeyUpdate with update_requested, through the server's own layer: the server
    /// answers with its own, and data flows both ways under the new keys.
    @Test func aClientKeyUpdateThroughTheOwnLayer() throws {
        let (client, server) = try pair(outputSize: 64 * 1024, own: true)
        try handshake(client, server, chunk: 64 * 1024)
        #expect(server.session.usesOwnRecordLayer)
        #expect(client.session.requestKeyUpdate())
        let m = Array("after the update".utf8)
        #expect(m.withUnsafeBytes { client.session.write($0) { client.drain() } } == nil)
        client.drain()
        try deliver(client, server, chunk: 64 * 1024)
        #expect(server.received == m)
        #expect(server.session.recordLayer?.readSequence == 1, "the KeyUpdate reset the read sequence; one record since")
        #expect(m.withUnsafeBytes { server.session.write($0) { server.drain() } } == nil)
        server.drain()
        try deliver(server, client, chunk: 64 * 1024)
        #expect(client.received == m)
    }
}
