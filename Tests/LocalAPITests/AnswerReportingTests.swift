import Foundation
import Inference
import Synchronization
import Testing
@testable import LocalAPI

/// A provider that falls back while answering (as the guest's runner does) is named by the brain
/// that answered: the header when the head goes out, the `homebase` object at the end.
@Suite struct AnswerReportingTests {
    /// FAKE, labelled: chosen as `openai`, "fails" before any text, then answers as `on-device`.
    final class FallingBackBrain: AnswerReporting {
        private let state = Mutex<(BrainKind, [String: String])>((.openAI, [:]))
        var brain: BrainKind { state.withLock { $0.0 } }
        var report: [String: String] { state.withLock { $0.1 } }

        func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
            state.withLock { $0 = (.openAI, [:]) }
            return AsyncThrowingStream { out in
                state.withLock { $0 = (.onDevice, [:]) }
                out.yield(.text("from the device"))
                state.withLock { $0.1 = ["fell_back_from": "openai"] }
                out.yield(.done(finishReason: "stop", usage: nil))
                out.finish()
            }
        }
    }

    @Test func headerAndHomebaseNameTheBrainThatAnswered() async throws {
        let h = try ServeHarness(brain: FallingBackBrain())
        defer { h.stop() }
        let body = #"{"model":"m","messages":[{"role":"user","content":"hi"}]"#
        let whole = try await fetch(h.base + "/v1/chat/completions", method: "POST", body: body + "}")
        #expect(whole.status == 200)
        #expect(whole.headers.header("X-Homebase-Brain") == "on-device")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(whole.body.utf8)) as? [String: Any])
        #expect(o["homebase"] as? [String: String] == ["brain": "on-device", "fell_back_from": "openai", "route": "test"])

        let streamed = try await fetch(h.base + "/api/chat", method: "POST", body: body + #","stream":true}"#)
        #expect(streamed.headers.header("X-Homebase-Brain") == "on-device")
        let last = try #require(streamed.body.split(separator: "\n").last)
        let final = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        #expect(final["homebase"] as? [String: String] == ["brain": "on-device", "fell_back_from": "openai", "route": "test"])
    }
}
