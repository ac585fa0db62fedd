import Foundation

/// The short, human message of an error body, for `InferenceError.http` and `.inBand`.
///
/// Understands the shapes engines use: OpenAI/vLLM/llama-server `{"error": {"message": ...}}`,
/// Ollama `{"error": "..."}`, FastAPI `{"detail": ...}`, `{"message": ...}`; else the first
/// line of the text. Always bounded to `maxLength` characters so no error grows a log.
enum HTTPErrorMessage {
    static let maxLength = 200

    static func short(from body: [UInt8], status: Int) -> String {
        if let object = try? JSONSerialization.jsonObject(with: Data(body)), let m = message(in: object) {
            return bounded(m)
        }
        let text = String(decoding: body.prefix(4096), as: UTF8.self)
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        return bounded(trimmed.isEmpty ? "no error message (HTTP \(status))" : trimmed)
    }

    /// The message of a decoded JSON error object, or nil when it carries none.
    static func message(in object: Any) -> String? {
        guard let dict = object as? [String: Any] else { return nil }
        for key in ["error", "detail", "message"] {
            guard let value = dict[key], !(value is NSNull) else { continue }
            if let s = value as? String { return s }
            if let inner = value as? [String: Any] {
                if let m = inner["message"] as? String { return m }
                if let m = inner["msg"] as? String { return m }
                if let t = inner["type"] as? String { return t }
            }
            if let list = value as? [[String: Any]], let m = list.first?["msg"] as? String { return m }
            return "\(key) of unknown shape"
        }
        return nil
    }

    static func bounded(_ s: String) -> String {
        s.count <= maxLength ? s : String(s.prefix(maxLength)) + "…"
    }
}
