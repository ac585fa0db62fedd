import Inference

extension Agent {
    /// Runs one call; every failure becomes an error text the model reads, never a thrown error.
    func execute(_ pending: PendingCall) async -> ToolResult {
        let call = pending.call
        if let reason = pending.malformedReason {
            return ToolResult(call: call, output: "error: \(AgentError.malformedToolCall(reason)). "
                + #"Write the call again as JSON: {"name": "<tool>", "arguments": {...}}"#, isError: true)
        }
        guard let tool = tools.first(where: { $0.name == call.name }) else {
            let names = tools.map(\.name).joined(separator: ", ")
            return ToolResult(call: call, output: "error: \(AgentError.unknownTool(String(call.name.prefix(64)))); available tools: \(names)",
                              isError: true)
        }
        do {
            return ToolResult(call: call, output: try await tool.call(argumentsJSON: call.argumentsJSON), isError: false)
        } catch {
            return ToolResult(call: call, output: "error: \(error)", isError: true)
        }
    }
}
