/// What a repo name says: family → series → size (with variants). Quant comes from file names.
public struct ParsedName: Sendable, Equatable, Codable {
    /// `Qwen`, `Llama`, `Code Llama`.
    public var family: String
    /// Family and version: `Qwen 2.5`, `Llama 3.2`, `Gemma 3n`; the family alone when unversioned.
    public var series: String
    /// Size token and variants: `1.5B`, `8x7B`, `30B-A3B`, `mini`, `1.5B Coder`, `4B Thinking`.
    public var size: String
    /// Parameters the size token implies (`8x7B` → 56e9), nil for size words like `mini`.
    public var parameters: Double?
}

/// Parses repo names (`bartowski/Qwen2.5-Coder-1.5B-Instruct-GGUF`). A name without a known
/// family or a size is not parsed: the catalog drops it (there is no "Other" bucket).
public enum NameParser {
    public static func parse(repoID: String) -> ParsedName? {
        let name = strip(repoID.split(separator: "/").last.map(String.init) ?? repoID)
        let lower = name.lowercased()
        guard let (family, end) = findFamily(lower) else { return nil }
        let words = lower.split(whereSeparator: isSeparator).map(String.init)
        guard let (size, parameters) = findSize(words) else { return nil }
        var labels: [String] = []
        for word in words {
            if let v = Families.variants.first(where: { $0.token == word }), !labels.contains(v.label) {
                labels.append(v.label)
            }
        }
        let version = findVersion(after: end, in: lower, words: words)
        return ParsedName(
            family: family.name,
            series: version.map { "\(family.name) \($0)" } ?? family.name,
            size: ([size] + labels).joined(separator: " "),
            parameters: parameters)
    }
}
