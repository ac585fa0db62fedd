import Foundation

/// Where the programs are: `HOMEBASE_BIN_DIR` (default: the directory of the running test bundle
/// or bench, where SwiftPM puts the products) and `HOMEBASE_ENGINE_DIR` (default
/// `~/.cache/homebase/engine`, made by `make engine`).
public struct Binaries: Sendable {
    public let directory: String
    public let engine: String
    public let model: String

    /// Fails, naming the first missing file and `hint` (how to build the products), unless every
    /// one of `programs` is there, and the engine and the tiny model when `engine`.
    public static func locate(needs programs: [String], engine: Bool = true, hint: String) throws -> Binaries {
        let env = ProcessInfo.processInfo.environment
        let dir = env["HOMEBASE_BIN_DIR"]
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
        let engineDir = env["HOMEBASE_ENGINE_DIR"] ?? NSHomeDirectory() + "/.cache/homebase/engine"
        let b = Binaries(directory: dir, engine: engineDir + "/bin/llama-server",
                         model: engineDir + "/models/tiny-seed0.gguf")
        for path in programs.map(b.path) + (engine ? [b.engine, b.model] : []) where !FileManager.default.fileExists(atPath: path) {
            throw SetupError("\(path) is missing: run \(engine ? "`make engine` and " : "")\(hint)")
        }
        return b
    }

    public func path(_ program: String) -> String { directory + "/" + program }
}
