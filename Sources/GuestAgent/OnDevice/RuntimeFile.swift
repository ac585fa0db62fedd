import Foundation
import Inference
import Routing

/// The verified local runtime, from `<data-dir>/runtime.json` (written by `guest runtime add`
/// after its probe said ready). Machine-local: never synced. Absent file: no endpoint.
///
///     {"url": "http://127.0.0.1:11434", "kind": "ollama", "verifiedAt": "...",
///      "models": [{"tag": "llama3.1:8b", "capabilities": ["completion"]}, ...]}
///
/// Models may also be plain tags (`"models": ["llama3.1:8b"]`). A file that does not parse
/// throws, which the router counts as "no endpoint" (on-device).
public struct RuntimeFile: LocalEndpointSource {
    public let path: String
    /// Bound on the file read: a list of model tags is far smaller.
    public static let maxBytes = 1 << 20

    public init(path: String) { self.path = path }

    struct Stored: Codable {
        var url: String
        var models: [Model]
    }

    /// A model as `guest runtime add` writes it (`{"tag": ...}`) or as a bare tag.
    struct Model: Codable {
        var tag: String
        /// What the probe learnt; nil when the runtime did not say (or a bare tag). A name this
        /// version does not know is skipped, not an error.
        var capabilities: [String]?

        init(tag: String, capabilities: [String]? = nil) { self.tag = tag; self.capabilities = capabilities }

        init(from decoder: any Decoder) throws {
            if let tag = try? decoder.singleValueContainer().decode(String.self) {
                self.tag = tag
            } else {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                tag = try c.decode(String.self, forKey: .tag)
                capabilities = try? c.decodeIfPresent([String].self, forKey: .capabilities)
            }
        }
    }

    public func verifiedEndpoint() throws -> LocalEndpoint? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard data.count <= Self.maxBytes else { throw GuestError.badFile(path: path, detail: "over \(Self.maxBytes) bytes") }
        do {
            let stored = try JSONDecoder().decode(Stored.self, from: data)
            var capabilities: [String: Set<ModelCapability>] = [:]
            for m in stored.models { if let c = m.capabilities { capabilities[m.tag] = Set(c.compactMap(ModelCapability.init(rawValue:))) } }
            return LocalEndpoint(url: stored.url, models: stored.models.map(\.tag), capabilities: capabilities)
        } catch {
            throw GuestError.badFile(path: path, detail: "not {\"url\": ..., \"models\": [...]}")
        }
    }

    /// Writes the endpoint (tests; `guest runtime add` writes the fuller record), atomically.
    public func write(_ endpoint: LocalEndpoint) throws {
        let data = try JSONEncoder().encode(Stored(url: endpoint.url, models: endpoint.models.map {
            Model(tag: $0, capabilities: endpoint.capabilities[$0].map { $0.map(\.rawValue).sorted() })
        }))
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
