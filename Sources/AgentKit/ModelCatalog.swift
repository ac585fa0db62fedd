import Foundation

/// The models the guest knows, bundled as `Resources/models.json`.
public struct ModelCatalog: Sendable, Equatable {
    public let models: [ModelSpec]

    /// The bundled catalog, decoded once. A broken bundle is a packaging bug caught by the
    /// module's tests, so it stops the program instead of showing an empty catalog.
    public static let bundled: ModelCatalog = {
        guard let url = Bundle.module.url(forResource: "models", withExtension: "json") else {
            preconditionFailure("AgentKit: models.json is missing from the bundle")
        }
        do { return try ModelCatalog(json: try Data(contentsOf: url)) }
        catch { preconditionFailure("AgentKit: bundled models.json: \(error)") }
    }()

    /// Decodes and checks a catalog: ids unique and non-empty, sizes positive, usable context
    /// at most the nominal one, downloadable models named by a repository and a file.
    public init(json: Data) throws {
        struct File: Decodable { var models: [ModelSpec] }
        let decoded: File
        do { decoded = try JSONDecoder().decode(File.self, from: json) }
        catch { throw AgentError.catalogInvalid("not a catalog: \(error)") }
        try self.init(models: decoded.models)
    }

    public init(models: [ModelSpec]) throws {
        var seen = Set<String>()
        for m in models {
            guard !m.id.isEmpty, seen.insert(m.id).inserted else {
                throw AgentError.catalogInvalid("empty or duplicate id '\(m.id)'")
            }
            guard m.sizeBytes > 0, m.minRAMBytes > 0, m.contextUsable > 0,
                  m.contextUsable <= m.contextNominal else {
                throw AgentError.catalogInvalid("\(m.id): sizes and contexts must be positive, usable <= nominal")
            }
            if m.downloadable && (m.repo.isEmpty || m.file.isEmpty) {
                throw AgentError.catalogInvalid("\(m.id): downloadable without a repo and a file")
            }
        }
        self.models = models
    }

    /// The spec with this id, if any.
    public func spec(id: String) -> ModelSpec? { models.first { $0.id == id } }
}
