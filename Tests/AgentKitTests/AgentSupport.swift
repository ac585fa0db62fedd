import AgentKit
import Inference
import Synchronization

/// A tool that counts its calls and echoes its arguments.
final class CountingTool: Tool, Sendable {
    let name: String
    let description = "counts"
    let parametersJSON = #"{"type":"object"}"#
    private let calls = Mutex(0)
    var count: Int { calls.withLock { $0 } }

    init(name: String = "counter") { self.name = name }

    func call(argumentsJSON: String) async throws -> String {
        let n = calls.withLock { $0 += 1; return $0 }
        return "call \(n) with \(argumentsJSON)"
    }
}

/// Collects strings written from any task.
final class Collector: Sendable {
    private let parts = Mutex<[String]>([])
    var text: String { parts.withLock { $0.joined() } }
    func write(_ s: String) { parts.withLock { $0.append(s) } }
}

/// The dialects plus native calls, for parameterised tests.
let allDialects: [ToolFamily?] = ToolFamily.allCases + [nil]

func toolMessages(_ transcript: [ChatMessage]) -> [String] {
    transcript.filter { $0.role == .tool }.map(\.content)
}
