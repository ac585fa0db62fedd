import Foundation
import Glibc
import Inference

/// `<data-dir>/runtime.json`: the verified runtime on this machine. Device-local: never synced.
///
///   {"url": "http://127.0.0.1:11434", "kind": "ollama", "verifiedAt": "2026-11-29T10:00:00Z",
///    "models": [{"tag": "qwen3:0.6b", "capabilities": ["completion", "tools"]}]}
///
/// Written only after the probe passed (test before persist), atomically (temporary file, rename).
public struct RuntimeRecord: Sendable, Equatable, Codable {
    public struct Model: Sendable, Equatable, Codable {
        public var tag: String
        /// Sorted; nil when the runtime does not say.
        public var capabilities: [ModelCapability]?
    }

    public var url: String
    public var kind: RuntimeKind
    public var models: [Model]
    public var verifiedAt: Date

    public static func path(dataDir: String) -> String { dataDir + "/runtime.json" }

    package init(report: RuntimeReport, at date: Date) {
        url = report.baseURL
        kind = report.kind
        models = report.models.map { Model(tag: $0.tag, capabilities: $0.capabilities.map { $0.map(\.self).sorted { $0.rawValue < $1.rawValue } }) }
        verifiedAt = date
    }

    /// The record on file, nil when there is none.
    public static func load(dataDir: String) throws -> RuntimeRecord? {
        let p = path(dataDir: dataDir)
        guard FileManager.default.fileExists(atPath: p) else { return nil }
        do {
            let d = JSONDecoder()
            d.dateDecodingStrategy = .iso8601
            return try d.decode(RuntimeRecord.self, from: Data(contentsOf: URL(fileURLWithPath: p)))
        } catch {
            throw LocalAPIError.runtimeFile("\(p) cannot be read: \(type(of: error))")
        }
    }

    package func save(dataDir: String) throws {
        let e = JSONEncoder()
        e.dateEncodingStrategy = .iso8601
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let p = Self.path(dataDir: dataDir)
        do {
            try FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true)
            try e.encode(self).write(to: URL(fileURLWithPath: p), options: .atomic)
        } catch {
            throw LocalAPIError.runtimeFile("\(p) cannot be written: \(error.localizedDescription)")
        }
    }
}
