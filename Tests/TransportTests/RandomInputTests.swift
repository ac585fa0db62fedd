import Testing
@testable import Transport

/// A small deterministic generator so a failure reproduces.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Test func randomBytesNeverCrashAndAlwaysEndInABoundedState() {
    var rng = SplitMix(state: 42)
    for round in 0..<300 {
        let n = Int.random(in: 0..<4096, using: &rng)
        let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
        for role in [WebSocketRole.server, .client] {
            var codec = WebSocketCodec(role: role, maxMessageSize: 1024)
            var i = 0
            while i < bytes.count {
                let k = min(Int.random(in: 1...64, using: &rng), bytes.count - i)
                codec.feed(Array(bytes[i..<(i + k)]))
                i += k
                while true {
                    let e = codec.next()
                    if e == .needMore { break }
                    if case .binary(let b) = e { #expect(b.count <= 1024, "round \(round)") }
                }
            }
            #expect(codec.bufferedBytes <= bytes.count)
        }
        var parser = HTTPRequestParser()
        let text = Array("GET / HTTP/1.1\r\nHost: h\r\n".utf8) + bytes
        if case .request(let r) = parser.parse(text) { #expect(r.body.count <= parser.limits.maxBodyBytes) }
    }
}
