import Foundation

/// A fresh directory `<prefix>-<uuid>` under the system's temporary directory.
public func temporaryDirectory(_ prefix: String) throws -> String {
    let d = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
    return d.path
}
