/// The gates a repo passes before the browser shows it: llama.cpp can load its architecture,
/// the agent can drive it (tools), and it can see (vision).
enum Capability {
    /// `general.architecture` values llama.cpp's server loads as chat models (embedding-only,
    /// encoder-only and audio-token models left out).
    static let architectures: Set<String> = [
        "llama", "llama4", "deci", "falcon", "falcon-h1", "baichuan", "grok", "gpt2", "gptj", "gptneox",
        "mpt", "starcoder", "starcoder2", "refact", "bloom", "stablelm", "qwen", "qwen2", "qwen2moe",
        "qwen2vl", "qwen3", "qwen3moe", "qwen3vl", "qwen3vlmoe", "qwen3next", "phi2", "phi3", "phimoe",
        "plamo", "plamo2", "codeshell", "orion", "internlm2", "minicpm", "minicpm3", "gemma", "gemma2",
        "gemma3", "gemma3n", "mamba", "mamba2", "xverse", "command-r", "cohere2", "dbrx", "olmo", "olmo2",
        "olmoe", "openelm", "arctic", "deepseek", "deepseek2", "chatglm", "glm4", "glm4moe", "bitnet",
        "jais", "nemotron", "nemotron_h", "exaone", "exaone4", "rwkv6", "rwkv7", "granite", "granitemoe",
        "granitehybrid", "chameleon", "plm", "bailingmoe", "dots1", "arcee", "ernie4_5", "ernie4_5-moe",
        "hunyuan-moe", "hunyuan-dense", "smollm3", "gpt-oss", "lfm2", "mistral3", "seed_oss", "apertus",
    ]

    /// Missing architecture: kept (benefit of the doubt; the load check decides later).
    static func architectureAllowed(_ architecture: String?) -> Bool {
        guard let a = architecture?.lowercased(), !a.isEmpty else { return true }
        return architectures.contains(a)
    }

    /// The chat template renders tools; only when there is no template, the name decides.
    static func toolCapable(template: String?, repoID: String) -> Bool {
        if let t = template, !t.isEmpty { return t.contains("tools") || t.contains("tool_call") }
        let name = repoID.lowercased()
        if ["instruct", "chat", "reasoning", "thinking"].contains(where: { name.contains($0) }) { return true }
        // `-it` as a word (gemma-3-4b-it), not the start of `-iterative`.
        guard let r = name.range(of: "-it") else { return false }
        return r.upperBound == name.endIndex || !name[r.upperBound].isLetter
    }

    /// Pipeline tag `image-text-to-text` / `any-to-any`, or a multimodal projector file.
    static func visionCapable(pipelineTag: String?, files: [String]) -> Bool {
        if let tag = pipelineTag, tag == "image-text-to-text" || tag == "any-to-any" { return true }
        return files.contains(where: isProjector)
    }

    static func isProjector(_ path: String) -> Bool {
        let name = (path.split(separator: "/").last.map(String.init) ?? path).lowercased()
        return name.contains("mmproj") && name.hasSuffix(".gguf")
    }
}
