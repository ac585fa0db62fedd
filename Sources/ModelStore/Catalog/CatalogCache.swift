import Foundation

/// What the hub said, as fetched: the listing of every organisation and the trees of the repos
/// worth sizing. Cached whole, so every view (`browse --all` too) works offline from it.
public struct CatalogSnapshot: Codable, Sendable, Equatable {
    public var fetchedAt: Date
    public var models: [HubModel]
    public var trees: [String: [HubFile]]
}

/// The snapshot on disk: one JSON file, replaced atomically.
struct CatalogCache: Sendable {
    let path: String

    func load() -> CatalogSnapshot? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        // A damaged cache is only a cache: ignore it and fetch again.
        return try? decoder.decode(CatalogSnapshot.self, from: data)
    }

    func save(_ snapshot: CatalogSnapshot) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        do {
            let data = try encoder.encode(snapshot)
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ModelStoreError.io(path: path, detail: "\(error)")
        }
    }
}
