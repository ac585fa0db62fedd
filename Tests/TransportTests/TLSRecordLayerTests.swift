import COpenSSL
import Foundation
import Testing
@testable import Transport

/// The own TLS 1.3 record layer without sockets: RFC 8448's vectors, then two layers with
/// mirrored secrets (a fake peer inside a unit test: the interop tests use OpenSSL itself).
@Suite struct TLSRecordLayerTests {
    private static func fixture() throws -> [String: String] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/tls13-rfc8448-simple-1rtt.txt").path
        var fields: [String: String] = [:]
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") where !line.hasPrefix("#") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    private static func hex(_ s: String?) -> [UInt8] {
        let s = Array((s ?? "").utf8)
        return stride(from: 0, to: s.count - 1, by: 2).map { UInt8(String(decoding: s[$0...$0 + 1], as: UTF8.self), radix: 16)! }
    }

    @Test func keysAndIVsFromRFC8448sSecrets() throws {
        let f = try Self.fixture()
        for side in ["client", "server"] {
            let secret = Self.hex(f["\(side)_secret"])
            let keys = try #require(secret.withUnsafeBytes { TrafficKeys(.aes128GCMSHA256, secret: $0, keyID: 1) })
            #expect(Array(keys.key) == Self.hex(f["\(side)_key"]), "\(side) key")
            #expect(Array(keys.iv) == Self.hex(f["\(side)_iv"]), "\(side) iv")
        }
        // A secret of the wrong length for the suite's hash is refused.
        #expect(Self.hex(f["client_key"]).withUnsafeBytes { TrafficKeys(.aes128GCMSHA256, secret: $0, keyID: 1) } == nil)
    }

    /// Opens the client's record as the server would and seals the server's at its sequence
    /// number: byte for byte RFC 8448's.
    @Test func recordsOpenAndSealAsInRFC8448() throws {
        let f = try Self.fixture()
        let server = try Endpoint(.aes128GCMSHA256, read: Self.hex(f["client_secret"]), write: Self.hex(f["server_secret"]))
        #expect(server.feed(Self.hex(f["client_record"])) == .bytes(Self.hex(f["plaintext"])))
        server.layer.writeSequenceForTests = 1
        #expect(Self.hex(f["plaintext"]).withUnsafeBytes { server.layer.write($0) {} } == nil)
        #expect(server.takeOutput() == Self.hex(f["server_record"]))
        // The same record under a key one sequence number off fails authentication.
        let late = try Endpoint(.aes128GCMSHA256, read: Self.hex(f["client_secret"]), write: Self.hex(f["server_secret"]))
        late.layer.readSequenceForTests = 1
        guard case .failed(let e) = late.feed(Self.hex(f["client_record"])) else { Issue.record("opened under the wrong nonce"); return }
        #expect(e.description.contains("authentication"))
    }

    @Test(arguments: TLS13Suite.allCases)
    func everyRecordCutAtEveryByteArrivesWhole(suite: TLS13Suite) throws {
        let (a, b) = try Endpoint.pair(suite)
        let message = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        #expect(message.withUnsafeBytes { a.layer.write($0) {} } == nil)
        let wire = a.takeOutput()
        #expect(wire.count == message.count + 3 * TLSRecordLayer.overhead, "40,000 bytes are 3 records")
        // Every cut of the first record's bytes, then the rest in pieces of 1,000.
        for cut in [1, 2, 4, 5, 6, 100, 16_383, 16_405, 16_406] {
            let (a, b) = try Endpoint.pair(suite)
            #expect(message.withUnsafeBytes { a.layer.write($0) {} } == nil)
            let w = a.takeOutput()
            var got: [UInt8] = []
            var i = 0
            for size in [cut] + Array(repeating: 1_000, count: w.count / 1_000 + 1) where i < w.count {
                let piece = Array(w[i..<min(i + size, w.count)])
                i += piece.count
                switch b.feed(piece) {
                case .bytes(let p): got += p
                case .needMore: break
                default: Issue.record("cut at \(cut): failed")
                }
            }
            #expect(got == message, "cut at \(cut)")
        }
        // One byte at a time through a whole record.
        var got: [UInt8] = []
        for byte in wire { if case .bytes(let p) = b.feed([byte]) { got += p } }
        #expect(got == message)
        #expect(!b.layer.holdsPartialRecord, "the partial record's buffer is freed once opened")
    }

    @Test func aFlippedBitFailsTheRecordAndSendsBadRecordMAC() throws {
        for position in [0, 1, 5, 20, 26] {
            let (a, b) = try Endpoint.pair(.aes256GCMSHA384)
            #expect(Array("hello".utf8).withUnsafeBytes { a.layer.write($0) {} } == nil)
            var w = a.takeOutput()
            w[position] ^= 0x01
            guard case .failed(let e) = b.feed(w) else { Issue.record("bit \(position) flipped and accepted"); continue }
            #expect(e.description.contains("record layer"), "\(e)")
            // The alert went out under b's key; a reads it as fatal.
            let alert = b.takeOutput()
            if position >= 1 {
                #expect(e.description.contains("authentication"))
                guard case .failed(let ae) = a.feed(alert) else { Issue.record("no alert"); continue }
                #expect(ae.description.contains("alert \(TLSRecordLayer.Alert.badRecordMAC.rawValue)"))
            }
            // Nothing more is read or written after a failure.
            #expect(Array("x".utf8).withUnsafeBytes { b.layer.write($0) {} } != nil)
        }
    }

    @Test func keyUpdateRequestedIsAnsweredAndBothSidesMoveOn() throws {
        let (a, b) = try Endpoint.pair(.chacha20Poly1305SHA256)
        #expect(a.layer.sealForTests(.handshake, [24, 0, 0, 1, 1]) == nil) // KeyUpdate, update_requested
        let update = a.takeOutput()
        a.layer.updateWriteKeyForTests()
        #expect(b.feed(update) == .needMore)
        #expect(b.layer.readSequence == 0, "b's read key is the next one")
        let reply = b.takeOutput()
        #expect(b.layer.writeSequence == 0, "b sent its own KeyUpdate and moved to its next write key")
        #expect(!reply.isEmpty)
        #expect(a.feed(reply) == .needMore, "a opens b's KeyUpdate (update_not_requested) and does not answer")
        #expect(a.takeOutput().isEmpty)
        #expect(Array("after".utf8).withUnsafeBytes { a.layer.write($0) {} } == nil)
        #expect(b.feed(a.takeOutput()) == .bytes(Array("after".utf8)))
        #expect(Array("back".utf8).withUnsafeBytes { b.layer.write($0) {} } == nil)
        #expect(a.feed(b.takeOutput()) == .bytes(Array("back".utf8)))
    }

    @Test func ourOwnKeyUpdateGoesOutAtTheRecordLimit() throws {
        let (a, b) = try Endpoint.pair(.aes128GCMSHA256)
        a.layer.recordsPerKey = 3
        let message = [UInt8](repeating: 7, count: 10 * TLSRecordLayer.maxPlaintext)
        #expect(message.withUnsafeBytes { a.layer.write($0) {} } == nil)
        var got: [UInt8] = []
        let wire = a.takeOutput()
        for i in stride(from: 0, to: wire.count, by: 4_096) {
            if case .bytes(let p) = b.feed(Array(wire[i..<min(i + 4_096, wire.count)])) { got += p }
        }
        #expect(got == message)
        #expect(a.layer.writeSequence <= 3 && b.layer.readSequence == a.layer.writeSequence)
    }

    /// RFC 8446 section 5: padding is stripped; empty application data is legal and delivers
    /// nothing; a change_cipher_spec, any other handshake message, an all-zero inner plaintext,
    /// content over 2^14 and a record over 2^14 + 256 each end the connection.
    @Test func paddingAndWhatIsRefused() throws {
        do {
            let (a, b) = try Endpoint.pair(.aes128GCMSHA256)
            #expect(a.layer.sealForTests(.applicationData, Array("pad".utf8), padding: 200) == nil)
            #expect(a.layer.sealForTests(.applicationData, []) == nil)
            #expect(b.feed(a.takeOutput()) == .bytes(Array("pad".utf8)))
        }
        func refused(_ name: String, _ make: (Endpoint) -> [UInt8], _ reason: String) throws {
            let (a, b) = try Endpoint.pair(.aes128GCMSHA256)
            guard case .failed(let e) = b.feed(make(a)) else { Issue.record("\(name) accepted"); return }
            #expect(e.description.contains(reason), "\(name): \(e)")
        }
        try refused("change_cipher_spec", { _ in [20, 3, 3, 0, 1, 1] }, "record of type 20")
        try refused("NewSessionTicket", { a in _ = a.layer.sealForTests(.handshake, [4, 0, 0, 0]); return a.takeOutput() }, "handshake message 4")
        try refused("all-zero inner", { a in _ = a.layer.sealForTests(nil, [0, 0, 0]); return a.takeOutput() }, "no content type")
        try refused("content over 2^14", { a in
            _ = a.layer.sealForTests(.applicationData, [UInt8](repeating: 1, count: TLSRecordLayer.maxPlaintext + 1)); return a.takeOutput()
        }, "over 2^14 bytes")
        try refused("ciphertext over 2^14+256", { _ in [23, 3, 3, 0x41, 0x01] }, "over 2^14+256")
        try refused("short record", { _ in [23, 3, 3, 0, 16] + [UInt8](repeating: 0, count: 16) }, "shorter than a tag")
        try refused("fatal alert", { a in _ = a.layer.sealForTests(.alert, [2, 40]); return a.takeOutput() }, "peer sent alert 40")
    }

    @Test func closeNotifyBothWays() throws {
        let (a, b) = try Endpoint.pair(.aes128GCMSHA256)
        a.layer.shutdown()
        #expect(b.feed(a.takeOutput()) == .closed)
        #expect(Array("late".utf8).withUnsafeBytes { a.layer.write($0) {} } != nil, "no data after our close_notify")
    }
}

/// One record layer over buffers of its own (what TLSSession gives it: the loop's output and the
/// socket's bytes as input).
final class Endpoint {
    let io = UnsafeMutablePointer<hb_bio_io>.allocate(capacity: 1)
    let out = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
    let plain = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    let ciphers: AEADContexts
    var layer: TLSRecordLayer!

    enum Fed: Equatable { case bytes([UInt8]), needMore, closed, failed(TransportError) }

    init(_ suite: TLS13Suite, read: [UInt8], write: [UInt8], ciphers: AEADContexts = AEADContexts()) throws {
        self.ciphers = ciphers
        io.initialize(to: hb_bio_io())
        io.pointee.output = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
        io.pointee.output_cap = out.count
        let made: TLSRecordLayer? = read.withUnsafeBytes { r in write.withUnsafeBytes { w in
            TLSRecordLayer(suite, readSecret: r, writeSecret: w, io: io, ciphers: ciphers)
        } }
        guard let made else { throw TransportError.tls("record layer not made") }
        layer = made
    }

    deinit { layer = nil; io.deallocate(); out.deallocate(); plain.deallocate() }

    /// Two ends with mirrored secrets, sharing one loop's cipher contexts.
    static func pair(_ suite: TLS13Suite) throws -> (Endpoint, Endpoint) {
        let x = (0..<suite.hashLength).map { UInt8($0) }, y = (0..<suite.hashLength).map { UInt8(200 - $0) }
        let shared = AEADContexts()
        return (try Endpoint(suite, read: x, write: y, ciphers: shared), try Endpoint(suite, read: y, write: x, ciphers: shared))
    }

    func takeOutput() -> [UInt8] {
        defer { io.pointee.output_len = 0 }
        return Array(UnsafeRawBufferPointer(start: out.baseAddress, count: io.pointee.output_len))
    }

    /// One read's bytes, read until the layer wants more: all the plaintext they held.
    func feed(_ bytes: [UInt8]) -> Fed {
        bytes.withUnsafeBytes { p in
            io.pointee.input = p.baseAddress?.assumingMemoryBound(to: UInt8.self)
            io.pointee.input_len = p.count
            defer { io.pointee.input = nil; io.pointee.input_len = 0 }
            var got: [UInt8] = []
            while true {
                if io.pointee.input_len == 0 { return got.isEmpty ? .needMore : .bytes(got) }
                switch layer.read(into: plain, drain: {}) {
                case .bytes(let n): got += plain[0..<n]
                case .needMore: return got.isEmpty ? .needMore : .bytes(got)
                case .closed: return .closed
                case .failed(let e): return .failed(e)
                }
            }
        }
    }
}

/// Parts sealed as one stream: records cut across parts (and empty parts) read back as the
/// parts joined, in records of at most 2^14 bytes.
@Test func partsAreSealedAsOneStream() throws {
    let (a, b) = try Endpoint.pair(.aes128GCMSHA256)
    let sizes = [3, 0, 20_000, 16_384, 1, 0, 5]
    let chunks = sizes.enumerated().map { i, n in (0..<n).map { UInt8(truncatingIfNeeded: $0 &+ i &* 40) } }
    let joined = chunks.flatMap { $0 }
    let err: TransportError? = withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: chunks.count) { parts in
        let copies = chunks.map { c -> UnsafeMutableRawBufferPointer in
            let m = UnsafeMutableRawBufferPointer.allocate(byteCount: max(c.count, 1), alignment: 1)
            m.copyBytes(from: c)
            return m
        }
        defer { copies.forEach { $0.deallocate() } }
        for (i, m) in copies.enumerated() { parts.initializeElement(at: i, to: UnsafeRawBufferPointer(rebasing: m[0..<sizes[i]])) }
        return a.layer.write(parts: UnsafeBufferPointer(parts)) {}
    }
    #expect(err == nil)
    let wire = a.takeOutput()
    #expect(wire.count == joined.count + 3 * TLSRecordLayer.overhead, "36,393 bytes are 3 records")
    #expect(b.feed(wire) == .bytes(joined))
}
