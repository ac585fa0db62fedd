import AgentKit
import Inference
import Testing

@Suite struct AgentChatTests {
    @Test func whatTimeIsItInIstanbul() async throws {
        let fake = FakeModel(script: [
            .toolCall("current_time", #"{"timezone":"Europe/Istanbul"}"#),
            .echoLastToolResult(prefix: "In Istanbul it is ", suffix: "."),
        ])
        let out = Collector()
        let result = try await AgentChat.run(prompt: "what time is it in Istanbul?", model: fake,
                                             allowedDirectories: [], output: out.write)
        #expect(result.outcome == .answered)
        #expect(result.runtime == .fake)
        #expect(result.toolResults.map(\.call.name) == ["current_time"])
        #expect(result.toolResults.first?.isError == false)
        // The real tool ran: Istanbul is UTC+03:00 all year since 2016.
        #expect(result.answer.hasPrefix("In Istanbul it is Europe/Istanbul: "))
        #expect(result.answer.hasSuffix("(UTC+03:00)."))
        #expect(await fake.prompts.first?.first?.content == "what time is it in Istanbul?")
        #expect(out.text.hasPrefix("[model fake (scripted), runtime fake: scripted demo model, not real inference]\n"))
        #expect(out.text.contains("[tool current_time {\"timezone\":\"Europe/Istanbul\"}]"))
        #expect(out.text.contains("In Istanbul it is Europe/Istanbul"))
    }

    @Test func fileToolsAreOfferedOnlyWithAnAllowedDirectory() throws {
        #expect(AgentChat.builtinTools(allowed: try AllowedDirectories([])).map(\.name) == ["current_time"])
        #expect(AgentChat.builtinTools(allowed: try AllowedDirectories(["/tmp"])).map(\.name)
            == ["current_time", "read_file", "list_dir"])
    }

    @Test func aLoopIsReportedInTheOutput() async throws {
        let step = FakeModel.Step.toolCall("current_time", #"{"timezone":"UTC"}"#)
        let fake = FakeModel(script: [step, step, step])
        let out = Collector()
        let result = try await AgentChat.run(prompt: "t", model: fake, allowedDirectories: [], output: out.write)
        #expect(result.outcome == .loopDetected(toolName: "current_time"))
        #expect(out.text.contains("[stopped: the model kept repeating the call current_time"))
    }
}
