import Foundation

/// Named SSE events of a stream (`event: NAME` + `data: JSON`), comments as `(":", nil)`.
func namedEvents(_ bytes: [UInt8]) -> [(name: String, data: [String: Any]?)] {
    String(decoding: bytes, as: UTF8.self).components(separatedBy: "\n\n").filter { !$0.isEmpty }.map { block in
        var name = "", data: [String: Any]?
        for line in block.split(separator: "\n") {
            if line.hasPrefix(":") { name = ":" }
            if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
            if line.hasPrefix("data: ") {
                data = try? JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any]
                if name.isEmpty { name = data?["type"] as? String ?? "data" }
            }
        }
        return (name, data)
    }
}

/// JSON object of a body.
func object(_ bytes: [UInt8]) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]) ?? [:]
}
