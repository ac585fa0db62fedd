import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing
import Transport

/// Transport's streamed-response server (used by `guest serve`) on raw sockets: exact framing.
@Suite struct HTTPServerTests {
    final class Harness: @unchecked Sendable {
        let loop: EventLoop
        var server: HTTPServer?
        init(configure: (inout HTTPServer.Configuration) -> Void = { _ in },
             handler: @escaping @Sendable (HTTPRequest, HTTPResponder) -> Void) throws {
            signal(SIGPIPE, SIG_IGN)
            loop = try EventLoop()
            try loop.start()
            var config = HTTPServer.Configuration()
            configure(&config)
            let ready = DispatchSemaphore(value: 0)
            let made = Mutex<Result<HTTPServer, TransportError>?>(nil)
            loop.execute { [loop, config] in
                made.withLock { $0 = Result { () throws(TransportError) in try HTTPServer(loop: loop, configuration: config, handler: handler) } }
                ready.signal()
            }
            _ = ready.wait(timeout: .now() + .seconds(30))
            server = try made.withLock { $0! }.get()
        }
        var port: UInt16 { server!.port }
        func stop() { loop.shutdown(); loop.join() }
    }

    /// Sends `request` on a fresh connection and reads until the server closes (or `readLimit`).
    /// Blocks a Dispatch thread, not the cooperative pool the handlers' tasks run on.
    func exchange(_ port: UInt16, _ request: String, readLimit: Int = 1 << 20) async throws -> String {
        try await withCheckedThrowingContinuation { done in
            DispatchQueue.global().async { done.resume(with: Result { try Self.blockingExchange(port, request, readLimit) }) }
        }
    }

    static func blockingExchange(_ port: UInt16, _ request: String, _ readLimit: Int) throws -> String {
        guard let fd = connectLoopback(Int(port), receiveTimeout: 30) else { throw TestSetupError("connect failed") }
        defer { close(fd) }
        var bytes = Array(request.utf8)
        _ = send(fd, &bytes, bytes.count, 0)
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while out.count < readLimit {
            let n = recv(fd, &buf, buf.count, 0)
            if n <= 0 { break }
            out += buf[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func streamTwoParts(_ r: HTTPRequest, _ responder: HTTPResponder) {
        Task {
            responder.start(status: .ok, headers: HTTPHeaders([("Content-Type", "text/plain")]))
            responder.write(Array("hello ".utf8))
            responder.write([])  // never an empty chunk: that would end the body
            responder.write(Array("wörld".utf8))
            responder.finish()
            responder.write(Array("after the end".utf8))
        }
    }

    @Test func http11StreamIsChunkedExactly() async throws {
        let h = try Harness(handler: Self.streamTwoParts)
        defer { h.stop() }
        let text = try await exchange(h.port, "GET /s HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(text == "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n6\r\nhello \r\n6\r\nwörld\r\n0\r\n\r\n")
    }

    @Test func http10StreamIsDelimitedByTheClose() async throws {
        let h = try Harness(handler: Self.streamTwoParts)
        defer { h.stop() }
        let text = try await exchange(h.port, "GET /s HTTP/1.0\r\n\r\n")
        #expect(text == "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nhello wörld")
    }

    @Test func refusedRequestsNeverReachTheHandler() async throws {
        let calls = Atomic<Int>(0)
        let h = try Harness(configure: { $0.http.maxBodyBytes = 8 }) { _, r in
            calls.add(1, ordering: .relaxed)
            r.respond(HTTPResponse(status: .ok, text: "ok"))
        }
        defer { h.stop() }
        #expect(try await exchange(h.port, "NOT A REQUEST\r\n\r\n").hasPrefix("HTTP/1.1 400 "))
        #expect(try await exchange(h.port, "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\n123456789").hasPrefix("HTTP/1.1 413 "))
        #expect(calls.load(ordering: .relaxed) == 0)
        let ok = try await exchange(h.port, "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\n\r\n12345678")
        #expect(ok.hasPrefix("HTTP/1.1 200 OK\r\n") && ok.hasSuffix("\r\n\r\nok"))
        #expect(calls.load(ordering: .relaxed) == 1)
    }

    @Test func clientGoingAwayMidStreamRunsOnClose() async throws {
        let closed = DispatchSemaphore(value: 0)
        let h = try Harness { _, responder in
            responder.onClose { closed.signal() }
            responder.start(status: .ok, headers: HTTPHeaders())
            responder.write(Array("first".utf8))  // and never finished
        }
        defer { h.stop() }
        let text = try await exchange(h.port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", readLimit: 1)
        #expect(text.hasPrefix("H"))
        #expect(closed.wait(timeout: .now() + .seconds(30)) == .success)
    }
}
