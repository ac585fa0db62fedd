import Signing
import RelayWire

/// One client of one protocol: sends the prepared message to its partner, reads the next message
/// addressed to it. Thin on purpose: blocking socket, the wire protocol spoken directly.
protocol Peer: AnyObject {
    var sock: Sock { get }
    /// Messages the server said it did not deliver (the relay's `dropped`).
    var drops: Int { get }
    /// Prepares the message of `size` payload bytes addressed to `partner`.
    func target(_ partner: Peer, size: Int) throws(BenchError)
    func send() throws(BenchError)
    /// Reads one message; its payload length if it is a message to us, nil for anything else.
    func readOne() throws(BenchError) -> Int?
}

extension Peer {
    /// Blocks for the next message to us; returns its payload length.
    func receive() throws(BenchError) -> Int {
        while true { if let n = try readOne() { return n } }
    }
    /// Reads whatever already waits (a publisher's replies: the relay's `dropped`), never blocking
    /// between messages.
    func drain() throws(BenchError) {
        while sock.hasInput { _ = try readOne() }
    }
}

enum Proto: String, CaseIterable {
    case relay, mqtt, nats, raw
}

/// `source` and `bufferSize`: see `Sock.init` (the holding client's idle connections).
func connectPeer(_ proto: Proto, port: UInt16, tls: Bool, name: String, source: String? = nil,
                 bufferSize: Int = 256 * 1024) throws(BenchError) -> Peer {
    let sock = try Sock(port: port, tls: tls, source: source, bufferSize: bufferSize)
    switch proto {
    case .relay: return try RelayPeer(sock: sock, port: port)
    case .mqtt: return try MQTTPeer(sock: sock, name: name)
    case .nats: return try NATSPeer(sock: sock, name: name)
    case .raw: return RawPeer(sock: sock)
    }
}

/// Our relay: WebSocket (RFC 6455, masked client frames) carrying relay frames, authenticated
/// with a fresh Ed25519 key; messages are live `send`s, received as `receive`.
final class RelayPeer: Peer {
    let sock: Sock
    let key = SigningKey.generate()
    var pub: Bytes32 { key.publicKey }
    private(set) var drops = 0
    /// `stored` answers seen (the mail workload waits for each).
    private(set) var stored = 0
    private var frame: [UInt8] = []

    init(sock: Sock, port: UInt16) throws(BenchError) {
        self.sock = sock
        let wsKey = "dGhlIHNhbXBsZSBub25jZQ==" // any 16 bytes in base64: the server only echoes its hash
        try sock.write(Array("GET /v1/connect HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(wsKey)\r\nSec-WebSocket-Version: 13\r\n\r\n".utf8))
        let status = try sock.readLine()
        guard status.hasPrefix("HTTP/1.1 101") else { throw .protocolError("upgrade refused: \(status)") }
        while try !sock.readLine().isEmpty {}
        guard case .challenge(let ch) = try decode(try nextMessage()) else { throw .protocolError("no challenge") }
        let transcript: [UInt8]
        do { transcript = try RelayAuth.transcript(origin: ch.origin, challenge: ch.nonce, deviceKey: pub) } catch {
            throw .protocolError("\(error)")
        }
        let auth = RelayFrame.auth(.init(deviceKey: pub, signature: Bytes64(key.sign(transcript))!, account: nil, admissionToken: nil))
        try sock.write(wsFrame(try encode(auth)))
        guard case .authOK = try decode(try nextMessage()) else { throw .protocolError("auth refused") }
    }

    func target(_ partner: Peer, size: Int) throws(BenchError) {
        guard let p = partner as? RelayPeer else { throw .usage("relay peers pair with relay peers") }
        let send = RelayFrame.send(.init(recipient: p.pub, deliveryClass: .live, frameID: Bytes16([UInt8](repeating: 7, count: 16))!,
                                         ttlSeconds: 0, collapseKey: [], sealed: [UInt8](repeating: 0x5a, count: size)))
        frame = wsFrame(try encode(send))
    }

    func send() throws(BenchError) { try sock.write(frame) }

    /// A prepared mail frame to `recipient` (a fresh id: the mailbox dedupes on it).
    func mailFrame(to recipient: Bytes32, id: Bytes16, size: Int) throws(BenchError) -> [UInt8] {
        wsFrame(try encode(RelayFrame.send(.init(recipient: recipient, deliveryClass: .mail, frameID: id, ttlSeconds: 3600,
                                                  collapseKey: [], sealed: [UInt8](repeating: 0x5a, count: size)))))
    }

    func readOne() throws(BenchError) -> Int? {
        let (opcode, length) = try header()
        if opcode == 0x9 { try sock.write(wsFrame(try sock.readBytes(length), opcode: 0xA)); return nil }
        if opcode == 0x8 { throw .closed }
        guard opcode == 0x2, length > 0 else { try sock.skip(length); return nil }
        let type = try sock.read(1) { $0[0] }
        try sock.skip(length - 1)
        switch type {
        case 0x11: return length - RelayFrame.headerSize - 57 // receive: sender, class, id, held
        case 0x16: drops += 1
        case 0x14: stored += 1
        case 0x15: throw .protocolError("mailbox-full: the relay did not store the mail")
        case 0x13: throw .protocolError("not-here: the partner is not connected")
        case 0x30: throw .protocolError("the relay sent error")
        default: break // queue-empty, pong, ...
        }
        return nil
    }

    /// Opcode and payload length of the next (unmasked, server) frame.
    private func header() throws(BenchError) -> (UInt8, Int) {
        let (b0, b1) = try sock.read(2) { ($0[0], $0[1]) }
        var length = Int(b1 & 0x7f)
        if length == 126 { length = try sock.read(2) { Int($0[0]) << 8 | Int($0[1]) } }
        else if length == 127 { length = try sock.read(8) { $0.reduce(0) { $0 << 8 | Int($1) } } }
        return (b0 & 0x0f, length)
    }

    private func nextMessage() throws(BenchError) -> [UInt8] {
        while true {
            let (opcode, length) = try header()
            let body = try sock.readBytes(length)
            if opcode == 0x2 { return body }
            if opcode == 0x8 { throw .closed }
        }
    }

    private func decode(_ m: [UInt8]) throws(BenchError) -> RelayFrame {
        do { return try RelayFrame.decode(m) } catch { throw .protocolError("bad frame: \(error)") }
    }

    private func encode(_ f: RelayFrame) throws(BenchError) -> [UInt8] {
        do { return try f.encode() } catch { throw .protocolError("encode: \(error)") }
    }
}

/// A masked client WebSocket frame (FIN set). The mask is fixed per process: masking cost is
/// paid once when the message is prepared, as a client reusing one buffer would.
func wsFrame(_ payload: [UInt8], opcode: UInt8 = 0x2) -> [UInt8] {
    var out: [UInt8] = [0x80 | opcode]
    let n = payload.count
    if n < 126 { out.append(0x80 | UInt8(n)) }
    else if n <= 0xffff { out += [0x80 | 126, UInt8(n >> 8), UInt8(n & 0xff)] }
    else { out.append(0x80 | 127); for s in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: n >> s)) } }
    let mask: [UInt8] = [0x37, 0xfa, 0x21, 0x3d]
    out += mask
    for (i, b) in payload.enumerated() { out.append(b ^ mask[i & 3]) }
    return out
}

/// A plain byte stream: the floor. Messages are `size` bytes back to back.
final class RawPeer: Peer {
    let sock: Sock
    let drops = 0
    private var payload: [UInt8] = []
    init(sock: Sock) { self.sock = sock }
    func target(_ partner: Peer, size: Int) { payload = [UInt8](repeating: 0x5a, count: size) }
    func send() throws(BenchError) { try sock.write(payload) }
    func readOne() throws(BenchError) -> Int? { try sock.skip(payload.count); return payload.count }
}
