import CommandLineKit
import Foundation
import GuestAgent
import ModelStore

/// `guest models ...`: the on-device model store through `ModelCommands`.
enum ModelsCommand {
    static let command = Command(
        name: "models", summary: "browse, download and choose on-device models",
        usage: "browse | search QUERY | pull NAME | cancel ID | list | use ID | delete ID | add-repo OWNER/NAME | fetch-wanted ID",
        details: "pull takes a shortlist name or OWNER/NAME[:QUANT], resumes a cut download, checks size and sha256,\n"
            + "then loads the model once in llama-server: only then is it ready. use selects a ready model, or one\n"
            + "still downloading (a ready one answers meanwhile). list shows each state; * marks the selection.\n"
            + "cancel stops a pull running in any terminal and removes its partial files; delete removes a model.\n"
            + "A local model a sibling chose downloads in the background, outliving the command that received it;\n"
            + "list shows it under \"In the background\", the next guest chat/serve/status resumes a stopped one.\n"
            + "fetch-wanted ID is that background download (the guest starts it; running it by hand is harmless).\n"
            + "The hub is https://huggingface.co, or $HF_ENDPOINT; $HF_TOKEN goes to that host only.",
        flags: [Flag("--all", "browse/search: include tool-capable models without vision"),
                Flag("--refresh", "browse: fetch the catalog again")] + Flag.relayLink.prefix(2),
        run: run)

    static let arity: [String: Int] = ["browse": 0, "search": -1, "pull": 1, "cancel": 1, "list": 0, "use": 1,
                                       "delete": 1, "add-repo": 1, "fetch-wanted": 1]

    static func run(_ inv: Invocation) async throws -> Int32 {
        let p = inv.positionals
        guard let verb = p.first, let n = arity[verb] else {
            throw inv.usageError(p.first.map { "unknown subcommand \($0)" } ?? "say which: \(arity.keys.sorted().joined(separator: ", "))")
        }
        let args = Array(p.dropFirst())
        guard n < 0 ? !args.isEmpty : args.count == n else {
            throw inv.usageError("models \(verb) takes \(n == 0 ? "no argument" : n < 0 ? "a query" : "one argument")")
        }
        if verb == "fetch-wanted" {
            return try await inv.withContext { context in
                await BackgroundFetch(context).fetch(args[0]) { Console.out($0 + "\n") }
            }
        }
        // `use` is a model choice, mailed to the siblings: that needs the relay link.
        return try await inv.withContext(linked: verb == "use") { context, link in
            let commands = context.modelCommands()
            let all = inv.arguments.has("--all")
            let output: CommandOutput
            switch verb {
            case "browse": output = try await commands.browse(all: all, refresh: inv.arguments.has("--refresh"))
            case "search": output = try await commands.search(args.joined(separator: " "), all: all)
            case "pull": output = try await pull(commands, args[0])
            case "cancel": output = try await commands.cancel(args[0])
            case "list": output = try commands.list()
            case "use":
                output = try commands.use(args[0])
                _ = await link?.share(.local, args[0], context: context)
            case "delete": output = try await commands.delete(args[0])
            default: output = try commands.addRepo(args[0])
            }
            Console.out(output.text)
            return 0
        }
    }

    /// Pull with a one-line progress bar on stderr (redrawn on a terminal, a line per 10% otherwise).
    static func pull(_ commands: ModelCommands, _ target: String) async throws -> CommandOutput {
        let bar = ProgressBar()
        let output = try await commands.pull(target) { bar.show($0) }
        bar.finish()
        return output
    }
}

/// The pull's progress line, fed from the download task.
final class ProgressBar: @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var formatter = ProgressFormatter()
    private var lastDecile = -1
    private var drew = false
    private let start = ContinuousClock.now

    func show(_ p: DownloadProgress) {
        lock.withLock {
            let t = ContinuousClock.now - start
            let line = formatter.line(p, at: Double(t.components.seconds) + Double(t.components.attoseconds) / 1e18)
            if Console.stderrIsTTY {
                Console.err("\r\u{1b}[2K" + line)
                drew = true
            } else if let f = p.fraction, Int(f * 10) > lastDecile {
                lastDecile = Int(f * 10)
                Console.err(line + "\n")
            }
        }
    }

    func finish() { lock.withLock { if drew { Console.err("\n") } } }
}
