import Foundation
import Inference
import Testing
@testable import LocalAPI

/// A request no brain the user chose can take (#23: an image and none can see, tools and none
/// can use them) is answered 422 with the router's words, streamed or not, in both APIs' shapes:
/// never a 502 that looks like a broken brain, never an answer that pretends.
@Suite struct RefusalTests {
    /// What serve's `path` answers one chat turn (streamed or not) that `brain` fails at once.
    static func ask(_ brain: any ChatProvider, _ path: String, stream: Bool) async throws -> (status: Int, body: String) {
        let h = try ServeHarness(brain: brain)
        defer { h.stop() }
        let body = #"{"model": "default", "stream": \#(stream), "messages": [{"role": "user", "content": "what is this?"}]}"#
        let r = try await fetch(h.base + path, method: "POST", body: body)
        return (r.status, r.body)
    }

    /// Labelled fake: fails at once, as the guest's runner does with the router's refusal.
    struct RefusingBrain: ChatProvider {
        var brain: BrainKind { .floor }
        func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
            AsyncThrowingStream { $0.finish(throwing: LocalAPIError.unservable(
                "no brain that can see the image is available: the on-device built-in model cannot see images")) }
        }
    }

    @Test(arguments: [("/v1/chat/completions", true), ("/v1/chat/completions", false), ("/api/chat", true), ("/api/chat", false)])
    func aRefusalIs422WithTheRoutersWords(path: String, stream: Bool) async throws {
        let r = try await Self.ask(RefusingBrain(), path, stream: stream)
        #expect(r.status == 422)
        #expect(r.body.contains("no brain that can see the image is available"), "\(r.body)")
        #expect((try? JSONSerialization.jsonObject(with: Data(r.body.utf8))) != nil, "\(r.body)")
    }

    /// Labelled fake: over the relay's limits, as the runner says when the router refuses the size.
    struct TooLargeBrain: ChatProvider {
        var brain: BrainKind { .floor }
        func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
            AsyncThrowingStream { $0.finish(throwing: LocalAPIError.tooLarge(
                "the request is too large for the chosen brain: an image of 11534337 bytes is over the relay's limit of 10 MiB per image")) }
        }
    }

    @Test(arguments: [("/v1/chat/completions", true), ("/api/chat", false)])
    func overTheRelaysLimitIs413NamingIt(path: String, stream: Bool) async throws {
        let r = try await Self.ask(TooLargeBrain(), path, stream: stream)
        #expect(r.status == 413)
        #expect(r.body.contains("limit of 10 MiB per image"), "\(r.body)")
    }
}
