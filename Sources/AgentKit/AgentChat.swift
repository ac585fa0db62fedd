import Inference

/// The entry point of `guest chat --tools`: one prompt, the built-in tools, streamed output.
public enum AgentChat {
    /// Longest tool result echoed to the output (the model always gets the whole result).
    static let shownResultCharacters = 200

    /// The built-in tools: `current_time`, plus `read_file` and `list_dir` when at least one
    /// directory is allowed.
    public static func builtinTools(allowed: AllowedDirectories) -> [any Tool] {
        var tools: [any Tool] = [CurrentTimeTool()]
        if !allowed.roots.isEmpty {
            tools.append(ReadFileTool(allowed: allowed))
            tools.append(ListDirTool(allowed: allowed))
        }
        return tools
    }

    /// Answers `prompt` with `model` and the built-in tools, writing the answer and each tool
    /// call to `output` as they happen. The first line names the model and its runtime; a
    /// scripted model is said to be one.
    /// - Throws: `AgentError.badAllowedDirectory`, or what `Agent.run` throws.
    public static func run(prompt: String, model: any Model, allowedDirectories: [String],
                           output: @escaping @Sendable (String) -> Void,
                           config: AgentConfig = AgentConfig()) async throws -> AgentResult {
        let allowed = try AllowedDirectories(allowedDirectories)
        let agent = Agent(model: model, tools: builtinTools(allowed: allowed), config: config)
        output(await header(model))
        let result = try await agent.run([ChatMessage(role: .user, content: prompt)]) { event in
            switch event {
            case .text(let text): output(text)
            case .toolCall(let call): output("\n[tool \(call.name) \(call.argumentsJSON)]\n")
            case .toolResult(let result):
                let shown = result.output.count > shownResultCharacters
                    ? String(result.output.prefix(shownResultCharacters)) + "..." : result.output
                output("[\(result.isError ? "tool error" : "result")] \(shown)\n")
            }
        }
        if case .loopDetected = result.outcome { output("\n[\(result.summary)]") }
        output("\n")
        return result
    }

    static func header(_ model: any Model) async -> String {
        let id = await model.loadedModelID ?? "(no model loaded)"
        let runtime = await model.runtime
        let note = runtime == .fake ? ": scripted demo model, not real inference" : ""
        return "[model \(id), runtime \(runtime.rawValue)\(note)]\n"
    }
}
