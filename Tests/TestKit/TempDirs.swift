import Foundation

/// A fresh directory `<prefix>-<uuid>` under the system's temporary directory.
public func temporaryDirectory(_ prefix: String) throws -> String {
    try TempDir(prefix).path
}

/// A fresh directory `<prefix>-<uuid>` under the system's temporary directory, removed by
/// `cleanup()`; a test that never calls it leaves the directory to the system's cleaner.
public struct TempDir: Sendable {
    public let url: URL
    public var path: String { url.path }

    public init(_ prefix: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    /// The path of `name` inside the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// The names in the directory, sorted.
    public func listing() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    public func cleanup() { try? FileManager.default.removeItem(at: url) }
}
