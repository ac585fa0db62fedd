import Foundation
import Testing
@testable import Transport

/// `WebSocket.send(binary:headCount:head:)`: a frame header and the caller's head written on the
/// stack, the tail sent as its slice (the relay's forward, allocating nothing when the socket
/// takes it all), queued only for what the socket does not take.
@Suite struct StackHeadSendTests {
    @Test(arguments: [0, 1, 125, 126, 65535, 65536, 1 << 33])
    func aHeaderWrittenOnTheStackIsTheArrayEncoding(length: Int) {
        for mask in [nil, (UInt8(1), UInt8(2), UInt8(3), UInt8(4))] as [(UInt8, UInt8, UInt8, UInt8)?] {
            let h = WebSocketFrameHeader(fin: true, opcode: .binary, mask: mask, length: length)
            var stack = [UInt8](repeating: 0xEE, count: WebSocketFrameHeader.maxSize)
            let n = stack.withUnsafeMutableBytes { h.encode(to: $0) }
            #expect(Array(stack.prefix(n)) == h.encoded())
        }
    }

    /// The server answers each message with a 5-byte head then a tail (100 B, or 2 MiB: more
    /// than the socket takes at once, so the rest is queued), on the loop and from elsewhere.
    @Test(arguments: [false, true], [false, true])
    func headThenTailArriveAsOneMessage(tls: Bool, offLoop: Bool) throws {
        let h = try LoopHarness()
        defer { h.stop() }
        var contexts: (TLSServerContext, TLSClientContext)?
        if tls {
            let c = try makeCertificate(in: try temporaryDirectory("transport"), name: "h")
            contexts = (try TLSServerContext(certificateFile: c.cert, keyFile: c.key),
                        try TLSClientContext(trust: .pinnedSHA256(try TLSClientContext.fingerprint(ofPEMFile: c.cert))))
        }
        let ctx = contexts?.0, clientTLS = contexts?.1
        let head: [UInt8] = [9, 8, 7, 6, 5]
        let big = (0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let small = Array(big.prefix(100))
        let port = try h.sync {
            try WebSocketServer(loop: h.loop, configuration: .init(), tls: ctx, onUpgrade: { ws in
                ws.onMessage = { ws, m in
                    guard case .binary(let b) = m else { return }
                    let tail = (b == [1] ? big : small)[...]
                    let send: @Sendable () -> Void = { ws.send(binary: tail, headCount: head.count) { $0.copyBytes(from: head) } }
                    if offLoop { Thread.detachNewThread(send) } else { send() }
                }
            }).port
        }
        var cfg = WebSocketClient.Configuration(host: "127.0.0.1", port: port, tls: clientTLS)
        cfg.maxMessageSize = 4 << 20
        let inbox = Inbox<WSEvent>()
        let ws = try connectClient(h, cfg, inbox)
        ws.send(binary: [0])
        #expect(try inbox.take() == .message(.binary(head + small)))
        ws.send(binary: [1])
        #expect(try inbox.take() == .message(.binary(head + big)))
        ws.send(binary: [0]) // after a queued remainder: in order, nothing lost
        #expect(try inbox.take() == .message(.binary(head + small)))
    }
}
