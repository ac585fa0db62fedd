import CommandLineKit
import GuestAgent
import Inference
import LocalAPI

/// `guest runtime add URL [--kind KIND] | list | remove`: the runtime on this machine (Ollama,
/// llama-server, vLLM), kept only after it passed the probe (models listed, a one-token trial).
enum RuntimeCommandLine {
    static let command = Command(
        name: "runtime", summary: "add, show or forget the model runtime on this machine (Ollama, llama-server)",
        usage: "add URL [--kind KIND] | list | remove",
        details: "add probes URL (reachable, lists its models, a one-token trial) and writes DATA-DIR/runtime.json only\n"
            + "when it answers; nothing is stored for a runtime that fails. The file never leaves this device.\n"
            + "To route to it: guest settings set model.source external; guest settings set ollama.model TAG.\n"
            + "Example: guest runtime add http://127.0.0.1:11434",
        flags: [Flag("--kind", "KIND", "ollama, llama-server, vllm or openai-compatible (default: detected)")],
        run: run)

    static func run(_ inv: Invocation) async throws -> Int32 {
        let p = inv.positionals
        switch (p.first, p.count) {
        case ("add", 2): break
        case ("list", 1), ("remove", 1):
            if inv.arguments.has("--kind") { throw inv.usageError("--kind only applies to runtime add") }
        case ("add", _): throw inv.usageError("runtime add takes one URL (http://HOST:PORT)")
        case (let verb?, _) where ["list", "remove"].contains(verb): throw inv.usageError("runtime \(verb) takes no argument")
        default: throw inv.usageError(p.first.map { "unknown subcommand \($0)" } ?? "say add, list or remove")
        }
        if p[0] == "add", !(p[1].hasPrefix("http://") || p[1].hasPrefix("https://")) {
            throw inv.usageError("runtime add: \(p[1].prefix(80)) is not an http:// or https:// URL")
        }
        if let kind = inv.arguments.value("--kind"), RuntimeKind(rawValue: kind) == nil {
            throw inv.usageError("--kind takes ollama, llama-server, vllm or openai-compatible")
        }
        let config = try inv.configuration
        try config.paths.create()
        var args = p
        if let kind = inv.arguments.value("--kind") { args += ["--kind", kind] }
        let text = Collected()
        let status = await RuntimeVerbs.run(arguments: args, dataDir: config.paths.dataDirectory,
                                              output: { text.append($0) })
        if status == 2 { Console.err(text.value) } else { Console.out(text.value) }
        if status == 0, p[0] == "add" {
            Console.out(Console.dim("route to it: guest settings set model.source external; guest settings set ollama.model TAG") + "\n")
        }
        return status
    }
}
