import Foundation
import Signing

/// `<data-dir>/relay-revocations`: the devices `homebase devices remove` took out of the roster,
/// one line each, `device key hex | roster version | removed at (Unix s)`. The running agent
/// turns them into `revoke-device` orders for its relay, kept as long as a proof can live.
package struct RevocationLog {
    package struct Entry: Equatable, Sendable {
        package var device: PublicKey
        package var rosterVersion: UInt64
        package var removedSeconds: UInt64

        // Spelled out: the memberwise one is internal; `homebase devices remove` (the executable) writes one.
        package init(device: PublicKey, rosterVersion: UInt64, removedSeconds: UInt64) {
            self.device = device; self.rosterVersion = rosterVersion; self.removedSeconds = removedSeconds
        }
    }

    let path: String

    package init(dataDir: String) { path = dataDir + "/relay-revocations" }

    func all() -> [Entry] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let w = line.split(separator: " ")
            guard w.count == 3, let key = PublicKey(hex: String(w[0])), let v = UInt64(w[1]), let t = UInt64(w[2]) else { return nil }
            return Entry(device: key, rosterVersion: v, removedSeconds: t)
        }
    }

    package func append(_ e: Entry) throws {
        let line = "\(e.device.hex) \(e.rosterVersion) \(e.removedSeconds)\n"
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? h.close() }
        try h.seekToEnd()
        try h.write(contentsOf: Data(line.utf8))
    }
}
