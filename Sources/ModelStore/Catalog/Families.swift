/// Model families the name parser knows: display name and the lower-case token that names it in
/// a repo name. Matched longest token first, so `codellama` beats `llama` and `tinyllama` beats
/// `llama`; a token must start a word (`dolphin` does not hold `phi`).
struct Family: Sendable {
    let name: String
    let token: String
}

enum Families {
    static let all: [Family] = [
        Family(name: "Code Llama", token: "codellama"), Family(name: "TinyLlama", token: "tinyllama"),
        Family(name: "Llama", token: "llama"), Family(name: "Qwen", token: "qwen"),
        Family(name: "QwQ", token: "qwq"), Family(name: "Gemma", token: "gemma"),
        Family(name: "CodeGemma", token: "codegemma"), Family(name: "MedGemma", token: "medgemma"),
        Family(name: "Phi", token: "phi"), Family(name: "Mistral", token: "mistral"),
        Family(name: "Mixtral", token: "mixtral"), Family(name: "Ministral", token: "ministral"),
        Family(name: "Magistral", token: "magistral"), Family(name: "Devstral", token: "devstral"),
        Family(name: "Codestral", token: "codestral"), Family(name: "Pixtral", token: "pixtral"),
        Family(name: "SmolLM", token: "smollm"), Family(name: "SmolVLM", token: "smolvlm"),
        Family(name: "DeepSeek", token: "deepseek"), Family(name: "Granite", token: "granite"),
        Family(name: "OLMo", token: "olmo"), Family(name: "OLMoE", token: "olmoe"),
        Family(name: "Falcon", token: "falcon"), Family(name: "InternLM", token: "internlm"),
        Family(name: "InternVL", token: "internvl"), Family(name: "Yi", token: "yi"),
        Family(name: "StableLM", token: "stablelm"), Family(name: "Hermes", token: "hermes"),
        Family(name: "Command R", token: "command-r"), Family(name: "Aya", token: "aya"),
        Family(name: "GLM", token: "glm"), Family(name: "MiniCPM", token: "minicpm"),
        Family(name: "LFM", token: "lfm"), Family(name: "EXAONE", token: "exaone"),
        Family(name: "LLaVA", token: "llava"), Family(name: "Moondream", token: "moondream"),
        Family(name: "gpt-oss", token: "gpt-oss"), Family(name: "Nemotron", token: "nemotron"),
        Family(name: "Dolphin", token: "dolphin"), Family(name: "Zephyr", token: "zephyr"),
        Family(name: "OpenChat", token: "openchat"), Family(name: "Starling", token: "starling"),
        Family(name: "StarCoder", token: "starcoder"), Family(name: "Baichuan", token: "baichuan"),
        Family(name: "Orca", token: "orca"), Family(name: "Solar", token: "solar"),
        Family(name: "Hunyuan", token: "hunyuan"), Family(name: "ERNIE", token: "ernie"),
        Family(name: "Kimi", token: "kimi"),
    ].sorted { $0.token.count > $1.token.count }

    /// Variants that split a size into its own row: `1.5B Coder`, `7B Math`, `4B Thinking`.
    /// Each entry is (token, label); the token must be a whole word of the name.
    static let variants: [(token: String, label: String)] = [
        ("coder", "Coder"), ("code", "Coder"), ("math", "Math"), ("vision", "Vision"), ("vl", "Vision"),
        ("thinking", "Thinking"), ("reasoning", "Reasoning"), ("omni", "Omni"), ("distill", "Distill"),
        ("abliterated", "Abliterated"), ("uncensored", "Uncensored"),
    ]

    /// Size words some families use instead of a parameter count (Phi-3-mini, Mistral-Small).
    static let sizeWords = ["nano", "micro", "tiny", "mini", "small", "medium", "large"]
}
