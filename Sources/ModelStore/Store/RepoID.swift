import Foundation

/// Custom repo ids: `owner/name`, two non-empty parts of id-safe characters. No network check
/// here: a repo that does not exist fails at download with a clear error.
public enum RepoID {
    /// Letters, digits, `-`, `_`, `.` (the hub's own rule); no `..`, no leading/trailing `-`/`.`.
    public static func validate(_ raw: String) throws -> String {
        let id = raw.trimmingCharacters(in: .whitespaces)
        let parts = id.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy(isSafe) else { throw ModelStoreError.invalidRepoID(raw) }
        return id
    }

    static func isSafe(_ part: Substring) -> Bool {
        guard !part.isEmpty, part.count <= 96, !part.contains("..") else { return false }
        guard let first = part.first, let last = part.last, first != "-", first != ".", last != "-", last != "." else {
            return false
        }
        return part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") }
    }
}

/// A curated model: one command downloads it.
public struct ShortlistItem: Sendable, Equatable {
    /// What the user types: `pull qwen3-vl-2b`.
    public var name: String
    public var repo: String
    public var quant: String
    public var summary: String

    public init(name: String, repo: String, quant: String, summary: String) {
        self.name = name
        self.repo = repo
        self.quant = quant
        self.summary = summary
    }

    /// Four small models that call tools and see, each one llama.cpp loads with its projector.
    public static let defaults: [ShortlistItem] = [
        ShortlistItem(name: "qwen3-vl-2b", repo: "Qwen/Qwen3-VL-2B-Instruct-GGUF", quant: "Q4_K_M",
                      summary: "Qwen3-VL 2B Instruct: tools and vision, ~1.9 GB"),
        ShortlistItem(name: "qwen2.5-vl-3b", repo: "ggml-org/Qwen2.5-VL-3B-Instruct-GGUF", quant: "Q4_K_M",
                      summary: "Qwen2.5-VL 3B Instruct: tools and vision, ~2.5 GB"),
        ShortlistItem(name: "gemma3-4b", repo: "ggml-org/gemma-3-4b-it-GGUF", quant: "Q4_K_M",
                      summary: "Gemma 3 4B it: vision, tool calls through the template, ~3.3 GB"),
        ShortlistItem(name: "smolvlm2-2.2b", repo: "ggml-org/SmolVLM2-2.2B-Instruct-GGUF", quant: "Q4_K_M",
                      summary: "SmolVLM2 2.2B Instruct: vision, smallest, ~1.6 GB"),
    ]
}
