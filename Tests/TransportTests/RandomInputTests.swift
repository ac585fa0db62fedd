import Testing
@testable import Transport

/// A small deterministic generator so a failure reproduces (TestSupport's).
typealias SplitMix = SplitMix64

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
