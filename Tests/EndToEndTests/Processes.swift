@_exported import TestSupport
import Foundation

/// The programs under test, run as real processes: the executables next to this test bundle
/// (`swift build --build-tests` builds them), the engine from `scripts/engine/install.sh`.
extension Binaries {
    static func locate() throws -> Binaries {
        try locate(needs: ["homebase-relay", "homebase", "guest"], hint: "`swift build --build-tests` first")
    }
}

/// A scene could not be set up or a program misbehaved (TestSupport's error).
typealias Failure = SetupError

/// Every process one test starts, SIGKILLed at `stopAll()`: TestSupport's ChildProcesses (one
/// copy with the benches'), config and data under `work`.
typealias Processes = ChildProcesses

extension ChildProcesses {
    static func freePort() throws -> Int { try TestSupport.freePort() }
    static func canConnect(_ port: Int) -> Bool { TestSupport.canConnect(port) }
}

/// The dim line after a `guest chat` answer: `[homebase · first token 12 ms · 40 tok/s ...]`.
struct AnswerLine {
    let brain: String
    let line: String

    init(_ output: String) throws {
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("[") && $0.hasSuffix("]") }) else {
            throw Failure("no answer line in: \(output)")
        }
        self.line = String(line)
        brain = String(line.dropFirst().prefix { $0 != " " && $0 != "]" })
    }
}
