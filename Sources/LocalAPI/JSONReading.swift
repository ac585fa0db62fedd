import Foundation
import Inference

/// Loosely-typed JSON reading for request bodies.
typealias JSONObject = [String: Any]

enum JSONReading {
    /// The body as a JSON object, or `.badRequest`.
    static func object(_ body: [UInt8]) throws(LocalAPIError) -> JSONObject {
        guard let o = try? JSONSerialization.jsonObject(with: Data(body)) as? JSONObject else {
            throw .badRequest("the body is not a JSON object")
        }
        return o
    }

    /// Compact JSON text of an object or array.
    static func text(_ value: Any) -> String {
        guard JSONSerialization.isValidJSONObject(value),
              let d = try? JSONSerialization.data(withJSONObject: value, options: [.withoutEscapingSlashes, .sortedKeys])
        else { return "{}" }
        return String(decoding: d, as: UTF8.self)
    }

    /// Compact JSON text of any value, fragments too (`"high"`, `3`, `true`): how unknown options
    /// are carried.
    static func fragment(_ value: Any) -> String {
        guard let d = try? JSONSerialization.data(withJSONObject: value, options: [.withoutEscapingSlashes, .sortedKeys, .fragmentsAllowed])
        else { return "null" }
        return String(decoding: d, as: UTF8.self)
    }

    /// Compact JSON bytes of an object (what the encoders write).
    static func bytes(_ object: JSONObject) -> [UInt8] {
        let d = (try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])) ?? Data("{}".utf8)
        return [UInt8](d)
    }

    static func int(_ v: Any?) -> Int? { (v as? NSNumber).map(\.intValue) }
    static func double(_ v: Any?) -> Double? { (v as? NSNumber).map(\.doubleValue) }
    static func bool(_ v: Any?) -> Bool? { (v as? NSNumber).map(\.boolValue) }

    /// A message content as text alone: a string, text parts (joined), or null. Images are refused
    /// here, never dropped: a reader that takes images uses `ContentReading.openAI`.
    static func content(_ v: Any?) throws(LocalAPIError) -> String {
        let parts = try ContentReading.openAI(v)
        guard parts.allSatisfy({ if case .text = $0 { true } else { false } }) else {
            throw .badRequest("images are not taken in this message")
        }
        return ChatMessage(role: .user, parts: parts).content
    }

    /// `tools: [{"type": "function", "function": {"name", "description", "parameters"}}]`,
    /// the same in both APIs.
    static func tools(_ v: Any?) throws(LocalAPIError) -> [ToolDefinitionInput] {
        guard let list = v as? [JSONObject] else { return [] }
        return try list.map { t throws(LocalAPIError) in
            guard let f = t["function"] as? JSONObject, let name = f["name"] as? String, !name.isEmpty else {
                throw .badRequest("a tool has no function name")
            }
            return ToolDefinitionInput(name: name, description: f["description"] as? String ?? "",
                                       parametersJSON: f["parameters"].map(text) ?? "{\"type\":\"object\"}")
        }
    }

    /// The role of a message; OpenAI's `developer` is a system message.
    static func role(_ v: Any?) throws(LocalAPIError) -> String {
        guard let r = v as? String else { throw .badRequest("a message has no role") }
        switch r {
        case "system", "developer": return "system"
        case "user", "assistant", "tool": return r
        default: throw .badRequest("unknown message role \"\(r.prefix(20))\"")
        }
    }
}

/// A tool definition as read from a request (turned into `ToolDefinition`).
struct ToolDefinitionInput { var name: String; var description: String; var parametersJSON: String }
