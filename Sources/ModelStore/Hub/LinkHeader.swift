import Foundation

/// The `rel="next"` target of an RFC 8288 `Link` header, as the hub paginates:
/// `<https://huggingface.co/api/models?...&cursor=...>; rel="next"`.
enum LinkHeader {
    static func next(_ value: String?) -> String? {
        guard let value else { return nil }
        for link in value.split(separator: ",") {
            let parts = link.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let target = parts.first, target.hasPrefix("<"), target.hasSuffix(">") else { continue }
            let rels = parts.dropFirst().filter { $0.lowercased().hasPrefix("rel=") }
            if rels.contains(where: { $0.dropFirst(4).trimmingCharacters(in: CharacterSet(charactersIn: "\"")).split(separator: " ").contains("next") }) {
                return String(target.dropFirst().dropLast())
            }
        }
        return nil
    }
}
