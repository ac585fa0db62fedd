import Foundation
import Inference
import Testing
@testable import LocalAPI

/// A real application from PyPI: `aider-chat` (installed by scripts/setup.sh into its own venv)
/// makes one non-interactive `--message` edit through `guest serve`'s OpenAI door. The brain is
/// a clearly labelled fake answering in aider's "whole" edit format, so the edit is checked
/// exactly (EndToEndTests drive aider at a real Homebase, whose tiny model answers noise).
@Suite struct AiderApplicationTests {
    static let edit = "hello.py\n```python\ndef greet():\n    return \"hello from homebase\"\n```\n"

    /// aider makes its edit of `hello.py` (a fresh directory) through serve, with `model` as its
    /// model name; the edit is checked and the fake brain, holding what aider sent, returned.
    func edit(model: String) async throws -> FakeBrain {
        let brain = FakeBrain(events: [.text(Self.edit), .done(finishReason: "stop", usage: Usage(promptTokens: 900, completionTokens: 20))])
        let h = try DoorsHarness(brain: brain, models: [ListedModel(name: "fake-brain", details: ModelDetails(capabilities: ["completion"]))])
        defer { h.stop() }
        let work = NSTemporaryDirectory() + "aider-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        let o = try await runClient("aider_edit.py", [h.base, model, work, "300"])
        #expect(o["installed"] as? Bool == true, "aider-chat is missing: run scripts/setup.sh (\(o))")
        #expect(o["status"] as? Int == 0, "\(o)")
        #expect(o["file"] as? String == "def greet():\n    return \"hello from homebase\"\n", "\(o)")
        return brain
    }

    @Test func aiderEditsAFileThroughServe() async throws {
        let brain = try await edit(model: "fake-brain")
        // aider sent the file and the instruction, as its own system and user messages.
        let asked = try #require(brain.requests.last)
        #expect(asked.messages.contains { $0.role == .system }, "\(asked.messages.map(\.role))")
        #expect(asked.messages.contains { $0.content.contains("hello from homebase") && $0.role == .user })
        #expect(asked.messages.contains { $0.content.contains("def greet():") })
    }

    /// aider's documented Ollama set-up (`ollama_chat/MODEL`, OLLAMA_API_BASE): litellm posts
    /// /api/chat with no Content-Type, which Ollama accepts and serve refused with 415.
    @Test func aiderEditsAFileThroughServesOllamaDoor() async throws {
        let brain = try await edit(model: "ollama_chat/fake-brain")
        #expect(brain.requests.last?.messages.contains { $0.content.contains("def greet():") } == true)
    }
}
