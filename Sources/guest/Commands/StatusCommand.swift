import CommandLineKit
import Foundation
import GuestAgent
import ModelStore

/// `guest status`: the route the next request would take, why, and the facts behind it.
enum StatusCommand {
    static let command = Command(
        name: "status", summary: "which brain the next request would reach, and why",
        usage: "[--json] [--explain]", details: "",
        flags: [Flag("--json", "print the status as JSON"),
                Flag("--explain", "add a short paragraph explaining the route")] + Flag.relayLink,
        run: run)

    static func run(_ inv: Invocation) async throws -> Int32 {
        guard inv.positionals.isEmpty else { throw inv.usageError("unexpected argument \(inv.positionals[0])") }
        // Beside a running `guest serve`: its link stays its own; adverts and mail are on file.
        let paths = try inv.configuration.paths
        if let serve = ServeFile.live(paths, why: { EventLog(path: paths.log).write("status: \($0)") }) {
            return try await inv.withContext { context in
                try show(inv, GuestStatus.gather(context).heldByServe(serve))
            }
        }
        return try await inv.withLinks { context, links in
            try show(inv, GuestStatus.gather(context, links: links))
        }
    }

    static func show(_ inv: Invocation, _ s: GuestStatus) throws -> Int32 {
        if inv.arguments.has("--json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            Console.out(String(decoding: try encoder.encode(s), as: UTF8.self) + "\n")
            return 0
        }
        let route = s.shape.map { "\(s.route) (\($0))" } ?? s.route
        Console.out("route:         \(s.isFloor ? Console.red("\(route): no local model, answers are a notice") : route)\n")
        Console.out("why:           \(s.reason)\n")
        if !s.tools.isEmpty { Console.out("with tools:    \(s.tools)\n") }
        if !s.images.isEmpty { Console.out("with images:   \(s.images)\n") }
        Console.out("local model:   \(s.isFloor ? Console.red(s.localModel) : s.localModel)\n")
        Console.out("llama-server:  \(s.llamaServer ?? "not found (scripts/engine/install.sh)")\n")
        if !s.engine.isEmpty { Console.out("engine:        \(s.engine)\n") }
        if !s.requestShaping.isEmpty { Console.out("requests:      \(s.requestShaping)\n") }
        Console.out("own advert:    \(s.ownAdvertAgeSeconds.map { "\($0) s old" } ?? "none received")\n")
        Console.out("host:          \(s.host)\n")
        Console.out("local runtime: \(s.localEndpoint ?? "none")\n")
        Console.out("keys:          \(s.keys.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))\n")
        if let f = s.lastFallback { Console.out("last fallback: \(f)\n") }
        for d in s.downloads { Console.out("download:      \(d.phase == .failed ? Console.red(d.line) : d.line)\n") }
        Console.out(s.relay.lines)
        if inv.arguments.has("--explain") { Console.out("\n\(s.explanation)\n") }
        return 0
    }
}

/// `guest status --json`'s value on one line: what the page's `/homebase/status` and events send.
enum StatusJSON {
    static func line(_ s: GuestStatus) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(s)) ?? Data("{}".utf8))
    }
}
