import CommandLineKit
import Foundation
import GuestAgent
import ModelStore
import Synchronization
import Wire

/// `guest host models | pull MODEL | delete MODEL | load MODEL | unload MODEL`: the own
/// Homebase's models, managed through the relay (SPEC.md "Managing the host's models").
enum HostCommand {
    static let command = Command(
        name: "host", summary: "list, pull, delete, load or unload the Homebase's models (own account only)",
        usage: "models | pull MODEL [--runtime URL] | pull --cancel MODEL | delete MODEL | load MODEL | unload MODEL [--json]",
        details: "models: the Homebase's runtimes, each model with its size, whether it is loaded and advertised.\n"
            + "pull: on an Ollama runtime MODEL is an Ollama name (llama3.2:1b; without a tag, :latest) from Ollama's\n"
            + "  library (/api/pull; a name it lacks is an error); on llama-server it is OWNER/REPO/FILE.gguf on the hub,\n"
            + "  downloaded into the Homebase's models folder (homebase run --models-dir). Progress is shown\n"
            + "  as a bar on stderr; with --json one JSON line per progress step, then the result. Where the hub gives\n"
            + "  the file's sha256 the Homebase checks it (a mismatch: the file removed, an error). Ctrl-C cancels the\n"
            + "  pull on the Homebase (llama-server: its partial file removed; Ollama keeps what it downloaded for the\n"
            + "  next pull); so does `pull --cancel MODEL` from another of your devices (from another terminal of this\n"
            + "  one it takes this device's relay link: the pull there then ends at its --timeout). A download cut short\n"
            + "  is resumed by the next pull of it.\n"
            + "delete, load, unload: where the runtime can (Ollama: /api/delete, and /api/generate keep_alive -1 or 0;\n"
            + "  llama-server loads and unloads only in router mode). MODEL as `guest host models` lists it.\n"
            + "Only the account's own devices may manage its models: a friend's device is refused (not_owner).",
        flags: [Flag("--cancel", "pull: cancel the pull of MODEL under way on the Homebase"),
                Flag("--runtime", "URL", "the runtime to act on (as `guest host models` lists it); default: the Homebase picks"),
                Flag("--homebase", "KEY", "which Homebase (a hex prefix of its key), when there are several"),
                Flag("--timeout", "TIME", "give up after TIME without a word from the Homebase (default 60s)"),
                Flag("--json", "print JSON (pull: one line per progress step, then the result)")] + Flag.relayLink,
        run: run)

    static func run(_ inv: Invocation) async throws -> Int32 {
        let p = inv.positionals
        let action: AppMessage.ManageAction
        switch p.first {
        case "models": action = .list
        case "pull": action = inv.arguments.has("--cancel") ? .cancel : .pull
        case "delete": action = .delete
        case "load": action = .load
        case "unload": action = .unload
        default: throw inv.usageError(p.first.map { "unknown subcommand \($0): say models, pull, delete, load or unload" }
                                      ?? "say models, pull MODEL, delete MODEL, load MODEL or unload MODEL")
        }
        let model: String
        if action == .list {
            guard p.count == 1 else { throw inv.usageError("host models takes no argument") }
            model = ""
        } else {
            guard p.count == 2, !p[1].isEmpty else { throw inv.usageError("host \(p[0]) takes one MODEL") }
            model = p[1]
        }
        if inv.arguments.has("--cancel"), action != .cancel { throw inv.usageError("--cancel goes with pull: guest host pull --cancel MODEL") }
        let runtime = inv.arguments.value("--runtime") ?? ""
        if !runtime.isEmpty, !(runtime.hasPrefix("http://") || runtime.hasPrefix("https://")) {
            throw inv.usageError("--runtime takes a runtime URL (http://HOST:PORT, as `guest host models` lists it)")
        }
        let timeout = try inv.positiveDuration("--timeout") ?? HostManager.defaultTimeout
        let json = inv.arguments.has("--json")
        return try await inv.withLinks { context, links in
            let manager: HostManager
            switch HostManager.target(context, links: links, choose: inv.arguments.value("--homebase"), timeout: timeout) {
            case .failure(let f): Console.err("guest host: \(f)\n"); return 1
            case .success(let m): manager = m
            }
            let bar = json ? nil : ProgressBar()
            let interrupted = Mutex(false)
            if action == .pull {
                ShutdownSignals.onInterrupt.withLock { $0 = { interrupted.withLock { $0 = true }; await cancel(model, manager, json: json) } }
            }
            defer { ShutdownSignals.onInterrupt.withLock { $0 = nil } }
            let result = await manager.run(action, model: model, runtime: runtime) { step in
                if json { Console.out(line(["progress": ["completed": step.completed, "total": step.total, "status": step.status]])) }
                bar?.show(DownloadProgress(received: Int64(clamping: step.completed), total: step.total == 0 ? nil : Int64(clamping: step.total)))
            }
            bar?.finish()
            // After Ctrl-C the links stay open for the cancel; the signal handler exits when it is answered.
            while interrupted.withLock({ $0 }) { try? await Task.sleep(for: .seconds(1)) }
            switch result {
            case .failure(let f):
                if json, case .host(let code, let message) = f { Console.out(line(["error": ["code": code, "message": message]])) }
                Console.err("guest host \(p[0]): \(f)\n")
                return 1
            case .success(let r):
                if json { Console.out(line(jsonResult(r))); return 0 }
                if action != .list { Console.out(r.text + "\n") }
                Console.out(text(r.runtimes))
                return 0
            }
        }
    }

    /// Ctrl-C during a pull: the Homebase stops it and removes the partial file before the guest exits.
    static func cancel(_ model: String, _ manager: HostManager, json: Bool) async {
        Console.err("\nguest host pull: cancelling the pull on the Homebase…\n")
        switch await manager.run(.cancel, model: model) {
        case .success(let r):
            if json { Console.out(line(["cancelled": r.text])) }
            Console.err("guest host pull: \(r.text)\n")
        case .failure(let f): Console.err("guest host pull: the cancel did not go through: \(f)\n")
        }
    }

    static func text(_ runtimes: [AppMessage.HostRuntime]) -> String {
        if runtimes.isEmpty { return "no runtimes on the Homebase (homebase runtime add URL)\n" }
        var s = ""
        for rt in runtimes {
            let can = [(AppMessage.HostRuntime.canPull, "pull"), (AppMessage.HostRuntime.canDelete, "delete"),
                       (AppMessage.HostRuntime.canLoad, "load/unload")].filter { rt.abilities & $0.0 != 0 }.map(\.1)
            s += "\(rt.url)  \(rt.kindName)  (\(can.isEmpty ? "no management" : can.joined(separator: ", ")))\n"
            if rt.models.isEmpty { s += "  no models\n" }
            for m in rt.models {
                let size = m.sizeBytes == 0 ? "size unknown" : ProgressFormatter.bytes(Int64(clamping: m.sizeBytes))
                s += "  \(m.name)  \(size)  \(m.loaded ? "loaded" : "not loaded")\(m.advertised ? "  advertised" : "")\n"
            }
        }
        return s
    }

    static func jsonResult(_ r: AppMessage.ManageResult) -> [String: Any] {
        ["result": r.text, "runtimes": r.runtimes.map { rt in
            ["url": rt.url, "kind": rt.kindName, "pull": rt.abilities & AppMessage.HostRuntime.canPull != 0,
             "delete": rt.abilities & AppMessage.HostRuntime.canDelete != 0, "load": rt.abilities & AppMessage.HostRuntime.canLoad != 0,
             "models": rt.models.map { ["name": $0.name, "size": $0.sizeBytes, "loaded": $0.loaded, "advertised": $0.advertised] as [String: Any] }]
                as [String: Any]
        }]
    }

    static func line(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
