/// What the guest knows of a listed model without asking anyone (the last advert, the verified
/// runtime's record): `/api/show` and `/api/ps` answer from it at once. Empty strings and nil
/// mean "not known here" and are written as Ollama writes unknowns (empty, or left out).
public struct ModelDetails: Sendable, Equatable {
    /// e.g. "llama", "qwen2"; Ollama's `general.architecture`.
    public var family: String
    /// e.g. "8.0B".
    public var parameterSize: String
    /// e.g. "Q4_K_M".
    public var quantization: String
    public var contextLength: Int?
    /// Ollama's capability names: "completion", "tools", "vision", "embedding", "insert", "thinking".
    public var capabilities: [String]

    public init(family: String = "", parameterSize: String = "", quantization: String = "",
                contextLength: Int? = nil, capabilities: [String] = ["completion"]) {
        self.family = family; self.parameterSize = parameterSize; self.quantization = quantization
        self.contextLength = contextLength; self.capabilities = capabilities
    }
}
