import Dispatch
import Foundation
import Glibc
import Inference
import Testing
import Transport
@testable import LocalAPI

/// Requests of several MB (images) on real sockets: taken up to the documented limit, answered
/// 413 with a JSON error beyond it, never a connection reset.
@Suite struct LargeRequestTests {
    /// A 5 MB image in a data URL reaches the brain byte for byte.
    @Test func fiveMegabyteImageReachesTheBrain() async throws {
        let brain = FakeBrain(events: FakeBrain.hello)
        let h = try ServeHarness(brain: brain)
        defer { h.stop() }
        var image = [UInt8](repeating: 0, count: 5_000_000)
        var rng = SplitMix64(seed: 5)
        for i in image.indices { image[i] = UInt8(truncatingIfNeeded: rng.next()) }
        image.replaceSubrange(0..<8, with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let body = #"{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"what is it?"},"#
            + #"{"type":"image_url","image_url":{"url":"data:image/png;base64,\#(Data(image).base64EncodedString())"}}]}]}"#
        let r = try await fetch(h.base + "/v1/chat/completions", method: "POST", body: body)
        #expect(r.status == 200, "\(r.body.prefix(300))")
        let sent = try #require(brain.requests.first)
        #expect(sent.messages[0].images == [ImageData(mediaType: "image/png", bytes: image)])
    }

    /// Over the limit: the status and a JSON error naming the limit, read by a client that is
    /// still sending its body when the server answers.
    @Test func overTheLimitIsA413NamingIt() async throws {
        let h = try ServeHarness(brain: FakeBrain(events: FakeBrain.hello))
        defer { h.stop() }
        let size = LocalAPIServer.maxRequestBytes + 1
        let answer = try await withCheckedThrowingContinuation { (done: CheckedContinuation<String, Error>) in
            DispatchQueue.global().async { done.resume(with: Result { try Self.send(port: h.port, bodySize: size) }) }
        }
        #expect(answer.hasPrefix("HTTP/1.1 413 "), "\(answer.prefix(200))")
        let json = try #require(answer.range(of: "\r\n\r\n").map { String(answer[$0.upperBound...]) })
        let error = try #require((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["error"] as? [String: Any])
        #expect(error["message"] as? String == "the request body is larger than the 32 MiB limit of guest serve (images count as their base64 text)")
        #expect(error["type"] as? String == "invalid_request_error")
    }

    /// Sends a head declaring `bodySize` bytes, then the whole body in 64 KiB writes, then reads
    /// the answer until the close. A reset while sending or reading throws.
    static func send(port: UInt16, bodySize: Int) throws -> String {
        guard let fd = connectLoopback(Int(port), receiveTimeout: 60) else { throw TestSetupError("connect failed") }
        defer { close(fd) }
        var head = Array("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\nContent-Length: \(bodySize)\r\n\r\n".utf8)
        guard Glibc.send(fd, &head, head.count, 0) == head.count else { throw TestSetupError("head not sent") }
        var chunk = [UInt8](repeating: UInt8(ascii: " "), count: 64 * 1024)
        var left = bodySize
        while left > 0 {
            let n = Glibc.send(fd, &chunk, min(left, chunk.count), Int32(MSG_NOSIGNAL))
            if n <= 0 { throw TestSetupError("send failed after \(bodySize - left) bytes: errno \(errno)") }
            left -= n
        }
        var out: [UInt8] = [], buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buf, buf.count, 0)
            if n < 0 { throw TestSetupError("recv failed: errno \(errno)") }
            if n == 0 { break }
            out += buf[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// The refusal of a request the parser would not take speaks the endpoint's error shape.
@Suite struct RefusalShapeTests {
    @Test func ollamaAndOpenAIShapes() throws {
        var limits = HTTPRequestParser.Limits()
        limits.maxBodyBytes = 1
        var parser = HTTPRequestParser(limits: limits)
        _ = parser.parse(Array("POST /api/chat HTTP/1.1\r\nHost: h\r\nContent-Length: 9\r\n\r\n".utf8))
        #expect(parser.refusedHead?.path == "/api/chat")
        let ollama = LocalAPIServer.refusal(.payloadTooLarge, parser.refusedHead, maxBody: 32 * 1024 * 1024)
        #expect(ollama.status.code == 413)
        let o = try JSONSerialization.jsonObject(with: Data(ollama.body)) as? [String: Any]
        let message = o?["error"] as? String
        #expect(message == "the request body is larger than the 32 MiB limit of guest serve (images count as their base64 text)")
        let openAI = LocalAPIServer.refusal(.badRequest, nil, maxBody: 1000)
        let e = (try JSONSerialization.jsonObject(with: Data(openAI.body)) as? [String: Any])?["error"] as? [String: Any]
        #expect(e?["message"] as? String == "the request could not be read (HTTP 400 Bad Request)")
    }
}
