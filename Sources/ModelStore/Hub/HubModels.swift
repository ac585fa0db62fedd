/// One repo as the hub's listing describes it (`/api/models?...&expand[]=gguf&expand[]=pipeline_tag
/// &expand[]=siblings`). Every field but `id` may be missing: the hub omits what it does not know.
public struct HubModel: Codable, Sendable, Equatable {
    /// `owner/name`.
    public var id: String
    /// `text-generation`, `image-text-to-text`, ...; nil when the repo has none.
    public var pipelineTag: String?
    /// The `gguf` expansion: read from the repo's first GGUF header. May be empty (`{}`).
    public var gguf: GGUFSummary?
    /// File names in the repo (`siblings[].rfilename`), without sizes.
    public var files: [String]

    public init(id: String, pipelineTag: String? = nil, gguf: GGUFSummary? = nil, files: [String] = []) {
        self.id = id
        self.pipelineTag = pipelineTag
        self.gguf = gguf
        self.files = files
    }

    enum CodingKeys: String, CodingKey {
        case id, gguf, siblings
        case pipelineTag = "pipeline_tag"
    }

    private struct Sibling: Codable { var rfilename: String }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        pipelineTag = try c.decodeIfPresent(String.self, forKey: .pipelineTag)
        gguf = try c.decodeIfPresent(GGUFSummary.self, forKey: .gguf)
        files = try c.decodeIfPresent([Sibling].self, forKey: .siblings)?.map(\.rfilename) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encodeIfPresent(pipelineTag, forKey: .pipelineTag)
        try c.encodeIfPresent(gguf, forKey: .gguf)
        try c.encode(files.map { Sibling(rfilename: $0) }, forKey: .siblings)
    }
}

/// The hub's `gguf` expansion of a repo.
public struct GGUFSummary: Codable, Sendable, Equatable {
    /// `general.architecture` (`llama`, `qwen2`, `gemma3`, ...).
    public var architecture: String?
    public var contextLength: Int?
    /// The Jinja chat template, when the GGUF carries one.
    public var chatTemplate: String?
    /// Parameter count.
    public var total: Int64?

    public init(architecture: String? = nil, contextLength: Int? = nil, chatTemplate: String? = nil, total: Int64? = nil) {
        self.architecture = architecture
        self.contextLength = contextLength
        self.chatTemplate = chatTemplate
        self.total = total
    }

    enum CodingKeys: String, CodingKey {
        case architecture, total
        case contextLength = "context_length"
        case chatTemplate = "chat_template"
    }
}

/// One entry of `/api/models/{repo}/tree/main?recursive=true`.
public struct HubFile: Codable, Sendable, Equatable {
    /// `file` or `directory`.
    public var type: String
    public var path: String
    /// Bytes (for LFS files, the real file's size, not the pointer's).
    public var size: Int64
    /// For LFS files: the sha256, which is also the ETag the resolve endpoint announces.
    public var lfs: LFSInfo?

    public struct LFSInfo: Codable, Sendable, Equatable {
        public var oid: String
        public var size: Int64
    }

    public init(path: String, size: Int64, sha256: String? = nil) {
        type = "file"
        self.path = path
        self.size = size
        lfs = sha256.map { LFSInfo(oid: $0, size: size) }
    }

    /// The size a download must reach.
    public var byteCount: Int64 { lfs?.size ?? size }
}
