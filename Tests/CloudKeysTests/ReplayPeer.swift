import Foundation

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

struct TestSetupError: Error, CustomStringConvertible {
    let description: String
}

/// InferenceTests' replay peer, whose `/keys/v1/models` plays the providers' key check.
enum ReplayPeer {
    private final class Peer: @unchecked Sendable {
        let process = Process()
        let stdin = Pipe()
        var port = 0
    }

    private static let shared: Result<Peer, Error> = Result {
        let python = packageRoot.appendingPathComponent(".cache/venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TestSetupError(description: "Python for the test peers missing at \(python): run scripts/setup.sh")
        }
        let peer = Peer()
        peer.process.executableURL = URL(fileURLWithPath: python)
        peer.process.arguments = [packageRoot.appendingPathComponent("Tests/InferenceTests/peers/replay_peer.py").path]
        let out = Pipe()
        peer.process.standardOutput = out
        peer.process.standardInput = peer.stdin
        try peer.process.run()
        var line = Data()
        while let b = try out.fileHandleForReading.read(upToCount: 1), !b.isEmpty, b != Data("\n".utf8) { line += b }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let p = Int(text.dropFirst(5)) else {
            throw TestSetupError(description: "replay peer did not report its port: \(text)")
        }
        peer.port = p
        return peer
    }

    static func port() throws -> Int { try shared.get().port }
}
