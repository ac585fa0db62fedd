import Foundation
import Testing
@testable import Inference

@Suite struct HTTPStreamClientTests {
    static func post(_ scenario: String, id: String) throws -> HTTPStreamRequest {
        HTTPStreamRequest(method: "POST", url: try ScriptedEngine.url(scenario) + "/v1/chat/completions",
                          headers: [HTTPHeader("X-Test-ID", id)], body: Array("{}".utf8))
    }

    @Test func headArrivesBeforeTheBody() async throws {
        let id = testID()
        // The peer holds the body back until released: `send` can only return with the head alone.
        let response = try await HTTPStreamClient().send(try Self.post("gated", id: id))
        #expect(response.status == 200)
        #expect(response.header("x-scripted") == "yes")
        #expect(response.header("Content-Type") == "text/event-stream")
        try await ScriptedEngine.release(id)
        let body = String(decoding: try await response.collect(), as: UTF8.self)
        #expect(body.hasSuffix("data: [DONE]\n\n"))
    }

    @Test func nonSuccessStatusIsReturnedThenRequired() async throws {
        let response = try await HTTPStreamClient().send(try Self.post("http500", id: testID()))
        #expect(response.status == 500)
        await #expect(throws: InferenceError.http(status: 500, message: "engine exploded")) {
            try await response.requireSuccess()
        }
    }

    @Test func collectEnforcesItsLimit() async throws {
        let response = try await HTTPStreamClient().send(try Self.post("ok", id: testID()))
        await #expect(throws: InferenceError.malformed("response body over 16 bytes")) {
            _ = try await response.collect(limit: 16)
        }
    }

    @Test func refusedIsUnreachable() async throws {
        let request = HTTPStreamRequest(url: "http://127.0.0.1:\(try freePort())/health")
        do {
            _ = try await HTTPStreamClient().send(request)
            Issue.record("a dead port answered")
        } catch let e as InferenceError {
            guard case .unreachable = e else { Issue.record("expected .unreachable, got \(e)"); return }
        }
    }

    @Test func nonHTTPURLIsRefusedBeforeAnyIO() async {
        await #expect(throws: InferenceError.unreachable("not an http(s) URL")) {
            _ = try await HTTPStreamClient().send(HTTPStreamRequest(url: "file:///etc/passwd"))
        }
    }

    @Test func cancelWhileWaitingForTheHead() async throws {
        let id = testID()
        let request = try Self.post("slowfirst", id: id)
        let task = Task { try await HTTPStreamClient().send(request) }
        task.cancel()
        do {
            let r = try await task.value
            // The head may have won the race; its body must then end as cancelled or complete.
            _ = try? await r.collect()
        } catch let e as InferenceError {
            #expect(e == .cancelled)
        }
    }

    @Test func manyConcurrentStreams() async throws {
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    let r = try await HTTPStreamClient().send(try Self.post("ok", id: testID()))
                    return String(decoding: try await r.collect(), as: UTF8.self)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(bodies.count == 16)
        #expect(bodies.allSatisfy { $0.hasSuffix("data: [DONE]\n\n") })
    }
}
