import Glibc

/// What the two broker peers share: the socket, the name that is also their own topic or
/// subject, and the one message `target` built, which `send` writes. Brokers at QoS 0 never say
/// what they dropped.
class BrokerPeer {
    let sock: Sock
    let name: String
    let drops = 0
    var packet: [UInt8] = []

    init(socket: Sock, name: String) {
        sock = socket
        self.name = name
    }

    func send() throws(BenchError) { try sock.write(packet) }
}

/// MQTT 3.1.1, QoS 0: CONNECT (clean session), SUBSCRIBE to our own name, PUBLISH to the partner's.
final class MQTTPeer: BrokerPeer, Peer {
    init(sock: Sock, name: String) throws(BenchError) {
        super.init(socket: sock, name: name)
        let id = Array(name.utf8)
        // "MQTT", level 4, flags: clean session, keepalive 600 s, client id.
        var body: [UInt8] = [0, 4] + Array("MQTT".utf8) + [4, 0x02, 0x02, 0x58]
        body += [UInt8(id.count >> 8), UInt8(id.count & 0xff)] + id
        try sock.write([0x10] + varint(body.count) + body)
        let ack = try sock.readBytes(4)
        guard ack[0] == 0x20, ack[3] == 0 else { throw .protocolError("CONNACK refused: \(ack)") }
        let topic = Array(name.utf8)
        let sub: [UInt8] = [0, 1, UInt8(topic.count >> 8), UInt8(topic.count & 0xff)] + topic + [0]
        try sock.write([0x82] + varint(sub.count) + sub)
        let suback = try sock.readBytes(5)
        guard suback[0] == 0x90, suback[4] == 0 else { throw .protocolError("SUBACK refused") }
    }

    func target(_ partner: Peer, size: Int) throws(BenchError) {
        guard let p = partner as? MQTTPeer else { throw .usage("MQTT peers pair with MQTT peers") }
        let topic = Array(p.name.utf8)
        let body = [UInt8(topic.count >> 8), UInt8(topic.count & 0xff)] + topic + [UInt8](repeating: 0x5a, count: size)
        packet = [0x30] + varint(body.count) + body
    }

    func readOne() throws(BenchError) -> Int? {
        let type = try sock.read(1) { $0[0] }
        var length = 0, shift = 0
        while true {
            let b = try sock.read(1) { $0[0] }
            length |= Int(b & 0x7f) << shift
            shift += 7
            if b & 0x80 == 0 { break }
        }
        if type & 0xf0 != 0x30 { try sock.skip(length); return nil }
        let topicLength = try sock.read(2) { Int($0[0]) << 8 | Int($0[1]) }
        try sock.skip(length - 2)
        return length - 2 - topicLength
    }
}

func varint(_ n: Int) -> [UInt8] {
    var out: [UInt8] = [], x = n
    repeat {
        var b = UInt8(x & 0x7f)
        x >>= 7
        if x > 0 { b |= 0x80 }
        out.append(b)
    } while x > 0
    return out
}

/// The NATS text protocol: CONNECT (not verbose), SUB to our own name, PUB to the partner's.
final class NATSPeer: BrokerPeer, Peer {
    init(sock: Sock, name: String) throws(BenchError) {
        super.init(socket: sock, name: name)
        guard try sock.readLine().hasPrefix("INFO") else { throw .protocolError("no INFO") }
        // The cluster section's nats-servers have explicit accounts: BENCH_NATS_USER / BENCH_NATS_PASSWORD.
        var login = ""
        if let u = getenv("BENCH_NATS_USER"), let p = getenv("BENCH_NATS_PASSWORD") {
            login = ",\"user\":\"\(String(cString: u))\",\"pass\":\"\(String(cString: p))\""
        }
        try sock.write(Array("CONNECT {\"verbose\":false,\"pedantic\":false,\"name\":\"\(name)\"\(login)}\r\nSUB \(name) 1\r\nPING\r\n".utf8))
        while true {
            let line = try sock.readLine()
            if line == "PONG" { break }
            if line.hasPrefix("-ERR") { throw .protocolError(line) }
        }
    }

    func target(_ partner: Peer, size: Int) throws(BenchError) {
        guard let p = partner as? NATSPeer else { throw .usage("NATS peers pair with NATS peers") }
        packet = Array("PUB \(p.name) \(size)\r\n".utf8) + [UInt8](repeating: 0x5a, count: size) + [13, 10]
    }

    func readOne() throws(BenchError) -> Int? {
        let line = try sock.readLine()
        if line.hasPrefix("MSG ") {
            guard let size = line.split(separator: " ").last.flatMap({ Int($0) }) else { throw .protocolError(line) }
            try sock.skip(size + 2)
            return size
        }
        if line == "PING" { try sock.write(Array("PONG\r\n".utf8)) }
        if line.hasPrefix("-ERR") { throw .protocolError(line) }
        return nil
    }
}
