import Foundation
import Routing

/// The verified local runtime, from `<data-dir>/runtime.json` (written by `guest runtime add`
/// after its probe said ready). Machine-local: never synced. Absent file: no endpoint.
///
///     {"url": "http://127.0.0.1:11434", "models": ["llama3.1:8b", "qwen2.5:0.5b"]}
///
/// A file that does not parse throws, which the router counts as "no endpoint" (on-device).
public struct RuntimeFile: LocalEndpointSource {
    public let path: String
    /// Bound on the file read: a list of model tags is far smaller.
    public static let maxBytes = 1 << 20

    public init(path: String) { self.path = path }

    struct Stored: Codable {
        var url: String
        var models: [String]
    }

    public func verifiedEndpoint() throws -> LocalEndpoint? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard data.count <= Self.maxBytes else { throw GuestError.badFile(path: path, detail: "over \(Self.maxBytes) bytes") }
        do {
            let stored = try JSONDecoder().decode(Stored.self, from: data)
            return LocalEndpoint(url: stored.url, models: stored.models)
        } catch {
            throw GuestError.badFile(path: path, detail: "not {\"url\": ..., \"models\": [...]}")
        }
    }

    /// Writes the endpoint (for `guest runtime add`), atomically.
    public func write(_ endpoint: LocalEndpoint) throws {
        let data = try JSONEncoder().encode(Stored(url: endpoint.url, models: endpoint.models))
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
