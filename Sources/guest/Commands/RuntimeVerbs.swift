import Foundation
import Inference
import LocalAPI

/// `guest runtime add URL [--kind KIND] | list | remove`: the local runtime arm. `add` probes
/// (reachable, lists models, trial completion) and writes `<data-dir>/runtime.json` only when the
/// verdict is ready.
enum RuntimeVerbs {
    static let help = """
        usage: guest runtime add URL [--kind ollama|llama-server|vllm|openai-compatible]
               guest runtime list
               guest runtime remove

        add     probes the runtime at URL (models, a one-token trial) and keeps it only if it answers
        list    shows the runtime on file, its models and when it was verified
        remove  forgets it

        """

    /// Exit codes: 0 done, 1 the probe failed or the file could not be written, 2 bad input.
    /// `probe` lets tests shorten the probe's timeouts.
    static func run(arguments: [String], dataDir: String, output: @escaping @Sendable (String) -> Void,
                           probe: @Sendable (inout RuntimeProbe.Configuration) -> Void = { _ in }) async -> Int32 {
        guard let verb = arguments.first, verb != "--help", verb != "-h" else { output(help); return arguments.isEmpty ? 2 : 0 }
        let rest = Array(arguments.dropFirst())
        do {
            switch verb {
            case "add": return try await add(rest, dataDir: dataDir, output: output, probe: probe)
            case "list" where rest.isEmpty: return try list(dataDir: dataDir, output: output)
            case "remove" where rest.isEmpty:
                let p = RuntimeRecord.path(dataDir: dataDir)
                guard FileManager.default.fileExists(atPath: p) else { output("no runtime on file\n"); return 0 }
                try FileManager.default.removeItem(atPath: p)
                output("runtime removed\n")
                return 0
            default:
                output("guest runtime: unknown or malformed command\n\n" + help)
                return 2
            }
        } catch {
            output("guest runtime: \(error)\n")
            return 1
        }
    }

    private static func add(_ args: [String], dataDir: String, output: @Sendable (String) -> Void,
                            probe: @Sendable (inout RuntimeProbe.Configuration) -> Void) async throws -> Int32 {
        var url: String?, kind: RuntimeKind?
        var i = 0
        while i < args.count {
            if args[i] == "--kind", i + 1 < args.count, let k = RuntimeKind(rawValue: args[i + 1]) {
                kind = k; i += 2
            } else if url == nil, args[i].hasPrefix("http://") || args[i].hasPrefix("https://") {
                url = args[i]; i += 1
            } else {
                output("guest runtime add: expected an http(s) URL and optionally --kind KIND\n\n" + help)
                return 2
            }
        }
        guard let url else { output(help); return 2 }
        var config = RuntimeProbe.Configuration(baseURL: url, expectedKind: kind)
        probe(&config)
        switch await RuntimeProbe(config).run() {
        case .failure(let f):
            output("not added: \(f)\n")
            return 1
        case .report(let r):
            guard r.verdict == .ready else {
                output("not added (\(r.verdict.rawValue)): \(r.advice ?? "the runtime did not pass the trial")\n")
                return 1
            }
            let record = RuntimeRecord(report: r, at: Date())
            try record.save(dataDir: dataDir)
            output("added \(r.kind.rawValue) at \(url): \(r.models.count) model(s)\n")
            return 0
        }
    }

    private static func list(dataDir: String, output: (String) -> Void) throws -> Int32 {
        guard let r = try RuntimeRecord.load(dataDir: dataDir) else { output("no runtime on file\n"); return 0 }
        var text = "\(r.kind.rawValue) at \(r.url), verified \(ISO8601DateFormatter().string(from: r.verifiedAt))\n"
        for m in r.models {
            text += "  \(m.tag)\(m.capabilities.map { "  [" + $0.map(\.rawValue).joined(separator: ", ") + "]" } ?? "")\n"
        }
        output(text)
        return 0
    }
}
