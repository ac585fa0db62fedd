// Where the programs are: the release binaries next to the bench, the engine in its cache.
import Foundation

public struct Binaries: Sendable {
    public let directory: String
    public let engine: String
    public let model: String

    /// `HOMEBASE_BIN_DIR` (default: the bench's own directory, `.build/release`) and
    /// `HOMEBASE_ENGINE_DIR` (default `~/.cache/homebase/engine`, made by `make engine`).
    public static func locate(needs programs: [String]) throws -> Binaries {
        let env = ProcessInfo.processInfo.environment
        let dir = env["HOMEBASE_BIN_DIR"]
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
        let engineDir = env["HOMEBASE_ENGINE_DIR"] ?? NSHomeDirectory() + "/.cache/homebase/engine"
        let b = Binaries(directory: dir, engine: engineDir + "/bin/llama-server",
                         model: engineDir + "/models/tiny-seed0.gguf")
        for path in programs.map(b.path) + [b.engine, b.model] where !FileManager.default.fileExists(atPath: path) {
            throw BenchError("\(path) is missing: run `make engine` and build the release products first (the Makefile target does both)")
        }
        return b
    }

    public func path(_ program: String) -> String { directory + "/" + program }
}

/// Lowercase hex, and back.
public func hex(_ bytes: some Collection<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out = [UInt8]()
    out.reserveCapacity(bytes.count * 2)
    for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
    return String(decoding: out, as: UTF8.self)
}

public func unhex(_ text: some StringProtocol) -> [UInt8]? {
    let u = Array(text.utf8)
    guard u.count % 2 == 0 else { return nil }
    func v(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: c - 48
        case 97...102: c - 87
        case 65...70: c - 55
        default: nil
        }
    }
    var out = [UInt8]()
    out.reserveCapacity(u.count / 2)
    var i = 0
    while i < u.count {
        guard let hi = v(u[i]), let lo = v(u[i + 1]) else { return nil }
        out.append(hi << 4 | lo)
        i += 2
    }
    return out
}
