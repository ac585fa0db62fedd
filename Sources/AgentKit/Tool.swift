import Foundation
import Inference

/// Something the model may call. Results and errors are text the model reads.
public protocol Tool: Sendable {
    /// The name the model calls (`current_time`).
    var name: String { get }
    /// One sentence for the model: what it does and when to use it.
    var description: String { get }
    /// JSON Schema of the arguments object, as text.
    var parametersJSON: String { get }
    /// Runs the call. Throw `AgentError` for failures the model should see and correct.
    func call(argumentsJSON: String) async throws -> String
}

extension Tool {
    /// The definition sent to the model.
    public var definition: ToolDefinition {
        ToolDefinition(name: name, description: description, parametersJSON: parametersJSON)
    }
}

/// Reads a tool's arguments object.
struct ToolArguments {
    let tool: String
    private let object: [String: Any]

    init(tool: String, json: String) throws {
        self.tool = tool
        let trimmed = json.trimmingSpaces
        if trimmed.isEmpty { object = [:]; return }
        guard let value = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)),
              let object = value as? [String: Any] else {
            throw AgentError.invalidArguments(tool: tool, detail: "arguments must be a JSON object")
        }
        self.object = object
    }

    /// A string argument; nil when absent, an error when present with another type.
    func string(_ key: String) throws -> String? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let text = value as? String else {
            throw AgentError.invalidArguments(tool: tool, detail: "\(key) must be a string")
        }
        return text
    }

    func requiredString(_ key: String) throws -> String {
        guard let text = try string(key), !text.isEmpty else {
            throw AgentError.invalidArguments(tool: tool, detail: "\(key) is required")
        }
        return text
    }
}
