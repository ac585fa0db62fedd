import Foundation

/// What a piece of JSON turned out to be.
enum CallShape: Equatable {
    case call(name: String, argumentsJSON: String)
    /// Valid JSON, but not shaped like a call (no `name`).
    case notACall
    case invalid(reason: String, name: String?)
}

/// Turns the JSON of one call (any family) into a name and canonical arguments.
enum ToolCallDecoder {
    /// Decodes one call object. Accepts `arguments` or `parameters`, as an object or as a string
    /// holding an object (OpenAI style), and the `{"function": {...}}` wrapping.
    static func decodeObject(_ raw: String) -> CallShape {
        guard let value = parse(raw) else {
            return .invalid(reason: "the call is not valid JSON", name: sniffName(raw))
        }
        return shape(of: value)
    }

    /// Decodes a Mistral list: an array of call objects, or one object.
    static func decodeList(_ raw: String) -> [CallShape] {
        guard let value = parse(raw) else {
            return [.invalid(reason: "the call list is not valid JSON", name: sniffName(raw))]
        }
        guard let list = value as? [Any] else { return [shape(of: value)] }
        if list.isEmpty { return [.invalid(reason: "the call list is empty", name: nil)] }
        return list.map(shape(of:))
    }

    /// The same JSON with sorted keys and no spacing; nil if `raw` is not JSON.
    static func canonical(_ raw: String) -> String? {
        guard let value = parse(raw) else { return nil }
        return serialize(value)
    }

    private static func shape(of value: Any) -> CallShape {
        guard var object = value as? [String: Any] else { return .notACall }
        if let inner = object["function"] as? [String: Any], object["name"] == nil { object = inner }
        guard let name = object["name"] as? String else { return .notACall }
        guard !name.isEmpty else { return .invalid(reason: "the call has an empty name", name: nil) }
        switch object["arguments"] ?? object["parameters"] {
        case nil, is NSNull:
            return .call(name: name, argumentsJSON: "{}")
        case let args as [String: Any]:
            guard let text = serialize(args) else {
                return .invalid(reason: "the arguments cannot be encoded", name: name)
            }
            return .call(name: name, argumentsJSON: text)
        case let text as String:
            guard let args = parse(text) as? [String: Any], let canonical = serialize(args) else {
                return .invalid(reason: "the arguments string is not a JSON object", name: name)
            }
            return .call(name: name, argumentsJSON: canonical)
        default:
            return .invalid(reason: "the arguments are not a JSON object", name: name)
        }
    }

    private static func parse(_ raw: String) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(raw.utf8), options: [.fragmentsAllowed])
    }

    private static func serialize(_ value: Any) -> String? {
        guard JSONSerialization.isValidJSONObject(value) || value is String || value is NSNumber,
              let data = try? JSONSerialization.data(
                  withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Best effort: the value of the first `"name": "..."` in broken JSON, for the error message.
    static func sniffName(_ raw: String) -> String? {
        guard let key = raw.range(of: "\"name\"") else { return nil }
        let rest = raw[key.upperBound...].drop { $0 == " " || $0 == ":" || $0 == "\n" || $0 == "\t" }
        guard rest.first == "\"" else { return nil }
        let name = rest.dropFirst().prefix { $0 != "\"" && $0 != "\\" && $0 != "\n" }
        guard !name.isEmpty, name.count <= 64, name.endIndex < rest.endIndex else { return nil }
        return String(name)
    }
}
