import Foundation
import Inference

/// Typed reading of request options: absent or null is "not sent" (`nil`), a value of the wrong
/// type is a 400 naming the key.
enum OptionReading {
    static func double(_ v: Any?, _ key: String) throws(LocalAPIError) -> Double? {
        switch v {
        case nil, is NSNull: return nil
        case let n as NSNumber: return n.doubleValue
        default: throw .badRequest("\(key) must be a number")
        }
    }

    static func int(_ v: Any?, _ key: String) throws(LocalAPIError) -> Int? {
        switch v {
        case nil, is NSNull: return nil
        case let n as NSNumber where n.doubleValue == n.doubleValue.rounded(): return n.intValue
        default: throw .badRequest("\(key) must be an integer")
        }
    }

    static func bool(_ v: Any?, _ key: String) throws(LocalAPIError) -> Bool? {
        switch v {
        case nil, is NSNull: return nil
        case let n as NSNumber: return n.boolValue
        default: throw .badRequest("\(key) must be true or false")
        }
    }

    /// `stop`: one string or a list of strings.
    static func stop(_ v: Any?) throws(LocalAPIError) -> [String] {
        switch v {
        case nil, is NSNull: return []
        case let s as String: return [s]
        case let list as [String]: return list
        default: throw .badRequest("stop must be a string or a list of strings")
        }
    }

    /// `"auto" | "none" | "required" | {"type": "function", "function": {"name"}}`.
    static func toolChoice(_ v: Any?) throws(LocalAPIError) -> ToolChoice? {
        switch v {
        case nil, is NSNull: return nil
        case let s as String where s == "auto": return .auto
        case let s as String where s == "none": return ToolChoice.none
        case let s as String where s == "required": return .required
        case let o as JSONObject:
            guard let name = (o["function"] as? JSONObject)?["name"] as? String, !name.isEmpty else {
                throw .badRequest("tool_choice names no function")
            }
            return .function(name)
        default: throw .badRequest("tool_choice must be \"auto\", \"none\", \"required\" or a function")
        }
    }

    /// `{"type": "text" | "json_object"}` or `{"type": "json_schema", "json_schema": {"name", "schema", "strict"}}`.
    static func responseFormat(_ v: Any?) throws(LocalAPIError) -> ResponseFormat? {
        switch v {
        case nil, is NSNull: return nil
        case let o as JSONObject:
            switch o["type"] as? String {
            case "text": return .text
            case "json_object": return .jsonObject
            case "json_schema":
                guard let s = o["json_schema"] as? JSONObject, let schema = s["schema"] as? JSONObject else {
                    throw .badRequest("response_format json_schema has no schema")
                }
                return .jsonSchema(name: s["name"] as? String ?? "response", schemaJSON: JSONReading.text(schema),
                                   strict: JSONReading.bool(s["strict"]) ?? false)
            default: throw .badRequest("response_format type must be text, json_object or json_schema")
            }
        default: throw .badRequest("response_format must be an object")
        }
    }
}

/// Ollama's `options`, `format` and `think`, in the vocabulary's words.
enum OllamaOptions {
    /// Options about how a local Ollama loads and runs its model: they mean nothing to the brain
    /// that answers here (another machine's engine, a cloud), so they are consumed.
    static let runner: Set<String> = ["num_gpu", "main_gpu", "num_thread", "num_batch", "use_mmap", "use_mlock",
                                      "numa", "low_vram", "vocab_only", "num_keep"]
    /// Sampling options llama.cpp knows by the same name: carried in `extra`.
    static let carried: Set<String> = ["typical_p", "repeat_last_n", "mirostat", "mirostat_tau", "mirostat_eta",
                                       "tfs_z", "penalize_newline"]

    static func read(_ v: Any?, into chat: inout ChatRequest, _ opts: inout GenerationOptions) throws(LocalAPIError) {
        guard let v, !(v is NSNull) else { return }
        guard let o = v as? JSONObject else { throw .badRequest("options must be an object") }
        for key in o.keys.sorted() {
            let value = o[key]
            switch key {
            case "temperature": chat.temperature = try OptionReading.double(value, key)
            // Ollama's -1 (no limit) and -2 (fill the context): no limit of ours.
            case "num_predict": chat.maxTokens = try OptionReading.int(value, key).flatMap { $0 > 0 ? $0 : nil }
            case "top_p": opts.topP = try OptionReading.double(value, key)
            case "top_k": opts.topK = try OptionReading.int(value, key)
            case "min_p": opts.minP = try OptionReading.double(value, key)
            case "seed": opts.seed = try OptionReading.int(value, key)
            case "stop": opts.stop = try OptionReading.stop(value)
            case "num_ctx": opts.contextLength = try OptionReading.int(value, key)
            case "repeat_penalty": opts.repeatPenalty = try OptionReading.double(value, key)
            case "presence_penalty": opts.presencePenalty = try OptionReading.double(value, key)
            case "frequency_penalty": opts.frequencyPenalty = try OptionReading.double(value, key)
            case _ where runner.contains(key): continue
            case _ where carried.contains(key): if let value, !(value is NSNull) { opts.extra[key] = JSONReading.fragment(value) }
            default: throw .badRequest("option \"\(key.prefix(40))\" is not supported")
            }
        }
    }

    /// `"json"` or a JSON Schema object (`""` or null: plain text).
    static func format(_ v: Any?) throws(LocalAPIError) -> ResponseFormat? {
        switch v {
        case nil, is NSNull: return nil
        case let s as String where s.isEmpty: return nil
        case let s as String where s == "json": return .jsonObject
        case let schema as JSONObject: return .jsonSchema(name: "response", schemaJSON: JSONReading.text(schema), strict: true)
        default: throw .badRequest("format must be \"json\" or a JSON Schema object")
        }
    }

    /// `think`: a bool turns the chat template's thinking on or off (`chat_template_kwargs`, which
    /// llama-server and vLLM read); a level is OpenAI's `reasoning_effort`.
    static func think(_ v: Any?, into opts: inout GenerationOptions) throws(LocalAPIError) {
        switch v {
        case nil, is NSNull: return
        case let level as String where ["low", "medium", "high"].contains(level):
            opts.extra["reasoning_effort"] = JSONReading.fragment(level)
        case let b as NSNumber:
            opts.extra["chat_template_kwargs"] = JSONReading.text(["enable_thinking": b.boolValue])
        default: throw .badRequest("think must be true, false, \"low\", \"medium\" or \"high\"")
        }
    }
}
