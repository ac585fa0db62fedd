extension HubConfig {
    /// The hub as the Hugging Face tools configure it: `HF_ENDPOINT` (a mirror, or the tests'
    /// stand-in) over the default `https://huggingface.co`, and `HF_TOKEN` for gated repos
    /// (sent to that host only). Empty values count as unset.
    public init(environment: [String: String]) {
        func value(_ key: String) -> String? { environment[key].flatMap { $0.isEmpty ? nil : $0 } }
        self.init(baseURL: value("HF_ENDPOINT") ?? "https://huggingface.co", token: value("HF_TOKEN"))
    }
}
