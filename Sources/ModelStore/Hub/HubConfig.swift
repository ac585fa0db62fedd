/// Where the hub is and what to ask it.
public struct HubConfig: Sendable {
    /// The hub's base URL, no trailing slash (`https://huggingface.co`; tests use loopback).
    public var baseURL: String
    /// Publishing organisations whose GGUF repos make the catalog.
    public var organisations: [String]
    /// A hub token (gated repos). Sent only to the base URL's own host, never on a redirect
    /// to a CDN host, never logged.
    public var token: String?
    /// Repos per listing page (the hub caps it at 1000).
    public var pageSize: Int
    /// Pages followed per organisation: a bound against a hub that paginates forever.
    public var maxPages: Int
    /// Tree requests in flight at once while sizing the catalog.
    public var treeConcurrency: Int
    /// Connect timeout, stall time, redirect limit.
    var http: HTTPOptions

    public static let defaultOrganisations = ["bartowski", "unsloth", "ggml-org", "lmstudio-community"]

    public init(
        baseURL: String = "https://huggingface.co",
        organisations: [String] = HubConfig.defaultOrganisations,
        token: String? = nil,
        pageSize: Int = 500,
        maxPages: Int = 40,
        treeConcurrency: Int = 4,
        connectTimeout: Duration = .seconds(10),
        stallTime: Duration = .seconds(30)
    ) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.organisations = organisations
        self.token = token
        self.pageSize = pageSize
        self.maxPages = maxPages
        self.treeConcurrency = max(1, treeConcurrency)
        http = HTTPOptions(connectTimeout: connectTimeout, stallTime: stallTime)
    }
}
