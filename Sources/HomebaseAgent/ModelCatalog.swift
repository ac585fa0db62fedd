import Inference
import Wire

/// The models this host serves right now: those of the available runtimes, first runtime
/// first (a tag two runtimes both serve is advertised as the earlier one probed it; requests spread over both). Built from the store.
/// Embedding-only models are listed (advertised with the embedding bit, for embeddings) but
/// never served chat (`runtimeURL(for:)`).
public struct ModelCatalog: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var info: AppMessage.ModelInfo
        /// Device-local; never leaves the machine.
        var runtimeURL: String
    }

    public private(set) var entries: [Entry] = []

    /// Chat runtimes per tag, store order (the advert lists a tag once, as the first one probed it).
    private var servers: [String: [String]] = [:]

    public init(runtimes: [StoredRuntime]) {
        var seen = Set<String>()
        for runtime in runtimes where runtime.available {
            for model in runtime.models where model.mayComplete || model.mayEmbed {
                if seen.insert(model.tag).inserted { entries.append(Entry(info: Self.info(model), runtimeURL: runtime.url)) }
                if Self.info(model).capabilities.contains(.completion) { servers[model.tag, default: []].append(runtime.url) }
            }
        }
    }

    /// What an advert lists.
    public var models: [AppMessage.ModelInfo] { entries.map(\.info) }

    /// The runtime serving `tag` for chat, nil when no available runtime does (or only as an
    /// embedding model).
    func runtimeURL(for tag: String) -> String? { runtimeURLs(for: tag).first }

    /// Every available runtime serving `tag` for chat, in store order (#21: requests spread over them).
    func runtimeURLs(for tag: String) -> [String] { servers[tag] ?? [] }

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
