import Inference
import Wire

/// The models this host serves right now: those of the available runtimes, first runtime
/// first (a tag two runtimes both serve goes to the earlier one). Built from the store.
/// Embedding-only models are listed (advertised with the embedding bit, for embeddings) but
/// never served chat (`runtimeURL(for:)`).
public struct ModelCatalog: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var info: AppMessage.ModelInfo
        /// Device-local; never leaves the machine.
        var runtimeURL: String
    }

    public private(set) var entries: [Entry] = []

    public init(runtimes: [StoredRuntime]) {
        var seen = Set<String>()
        for runtime in runtimes where runtime.available {
            for model in runtime.models where (model.mayComplete || model.mayEmbed) && seen.insert(model.tag).inserted {
                entries.append(Entry(info: Self.info(model), runtimeURL: runtime.url))
            }
        }
    }

    /// What an advert lists.
    public var models: [AppMessage.ModelInfo] { entries.map(\.info) }

    /// The runtime serving `tag` for chat, nil when no available runtime does (or only as an
    /// embedding model).
    func runtimeURL(for tag: String) -> String? {
        entries.first { $0.info.tag == tag && $0.info.capabilities.contains(.completion) }?.runtimeURL
    }

    /// Advert fields from what the probe learnt; unknown fields are empty strings / 0.
    static func info(_ m: RuntimeModel) -> AppMessage.ModelInfo {
        var caps: AppMessage.Capabilities = []
        let known = m.capabilities ?? [.completion]
        if known.contains(.tools) { caps.insert(.tools) }
        if known.contains(.vision) { caps.insert(.vision) }
        if known.contains(.completion) { caps.insert(.completion) }
        if known.contains(.embedding) { caps.insert(.embedding) }
        return AppMessage.ModelInfo(tag: m.tag, family: m.family ?? "", parameterSize: m.parameterSize ?? "",
                                    quantization: m.quantization ?? "",
                                    contextLength: UInt32(clamping: m.contextLength ?? 0), capabilities: caps)
    }
}
