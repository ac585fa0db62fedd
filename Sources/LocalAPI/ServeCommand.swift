import Dispatch
import Foundation
import Glibc
import Transport

/// `guest serve [--listen HOST:PORT] [--allow-remote] [--token-file FILE] [--allow-origin ORIGIN]`: runs the local API until
/// SIGINT or SIGTERM. The CLI calls `run` in one line with the guest's router.
public enum ServeCommand {
    public static let help = """
        usage: guest serve [--listen HOST:PORT] [--allow-remote] [--token-file FILE] [--allow-origin ORIGIN]...

        Serves the routed brain on an OpenAI-compatible API (POST /v1/chat/completions,
        GET /v1/models) and an Ollama-compatible one (POST /api/chat, GET /api/tags).
        Refuses web pages: a Host that is not loopback (403), an Origin not allowed (403),
        a POST that is not Content-Type: application/json (415).
        Takes request bodies up to \(LocalAPIServer.mebibytes(LocalAPIServer.maxRequestBytes)) (413 beyond); images travel inline
        (data URLs, Ollama "images"), image URLs are never fetched (400).

          --listen HOST:PORT     where to listen (default 127.0.0.1:\(ServeConfiguration.defaultPort))
          --allow-remote         allow a non-loopback address (requires a token)
          --token-file FILE      require "Authorization: Bearer TOKEN", TOKEN the file's first line
                                 (created 0600 with a random token when missing; default: none,
                                 or $HOMEBASE_SERVE_TOKEN; clients send it as OPENAI_API_KEY)
          --token TOKEN          as --token-file, but visible to other users (warned)
          --allow-origin ORIGIN  let pages of ORIGIN (http://localhost:3000) call it, with CORS;
                                 repeatable (default: none, only serve's own origin)

        """

    /// Reads the flags; `environment` supplies `HOMEBASE_SERVE_TOKEN` when `--token` is absent.
    public static func parse(_ arguments: [String], environment: [String: String] = [:]) throws -> ServeConfiguration {
        var config = ServeConfiguration()
        var i = 0
        func value(_ flag: String) throws -> String {
            i += 1
            guard i < arguments.count else { throw LocalAPIError.badRequest("\(flag) needs a value") }
            return arguments[i]
        }
        while i < arguments.count {
            switch arguments[i] {
            case "--listen":
                (config.host, config.port) = try ServeConfiguration.parseListen(try value("--listen"))
            case "--allow-remote": config.allowRemote = true
            case "--token": config.token = try value("--token")
            case "--token-file": config.tokenFile = try value("--token-file")
            case "--allow-origin": try config.allow(origin: try value("--allow-origin"))
            default: throw LocalAPIError.badRequest("unknown argument \"\(arguments[i].prefix(40))\"")
            }
            i += 1
        }
        if let file = config.tokenFile {
            guard config.token == nil else { throw LocalAPIError.badRequest("give --token-file or --token, not both") }
            config.token = try TokenFile.load(file).token
        }
        if config.token == nil, let t = environment["HOMEBASE_SERVE_TOKEN"], !t.isEmpty { config.token = t }
        try config.validate()
        return config
    }

    /// Serves until SIGINT or SIGTERM; the event loop runs on its own thread and the wait blocks
    /// no thread of the cooperative pool (answers run there).
    /// Exit codes: 0 after a signal, 1 when the port cannot be bound, 2 for bad input.
    public static func run(arguments: [String], output: @escaping @Sendable (String) -> Void,
                           router: @escaping AnswerRouter, models: @escaping ModelLister) async -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") { output(help); return 0 }
        let config: ServeConfiguration
        do {
            config = try parse(arguments, environment: ProcessInfo.processInfo.environment)
        } catch {
            output("guest serve: \(error)\n\n" + help)
            return 2
        }
        if arguments.contains("--token") { output(ServeConfiguration.tokenInArgvWarning) }
        return await run(configuration: config, output: output, router: router, models: models)
    }

    /// As `run(arguments:...)` with the flags already read (the `guest` CLI reads them itself).
    /// Exit codes: 0 after a signal, 1 when the port cannot be bound. `listening` hears the
    /// bound port once requests can arrive (the guest announces it in `serve.json`).
    public static func run(configuration config: ServeConfiguration, output: @escaping @Sendable (String) -> Void,
                           router: @escaping AnswerRouter, models: @escaping ModelLister,
                           listening: @escaping @Sendable (Int) -> Void = { _ in }) async -> Int32 {
        // A client that hangs up mid-answer must not kill the process.
        signal(SIGPIPE, SIG_IGN)
        let loop: EventLoop
        do { loop = try EventLoop() } catch { output("guest serve: \(error)\n"); return 1 }
        let holder = ServerHolder()
        loop.execute {
            do {
                let server = try LocalAPIServer(loop: loop, configuration: config, router: router, models: models)
                holder.server = server
                for s in [SIGINT, SIGTERM] { try loop.onSignal(s) { loop.shutdown() } }
                let shown = config.host.contains(":") ? "[\(config.host)]" : config.host
                output("guest serve: listening on http://\(shown):\(server.port)  (OpenAI: /v1, Ollama: /api)\n")
                listening(Int(server.port))
            } catch {
                holder.failed = true
                output("guest serve: cannot listen on \(config.host):\(config.port): \(error)\n")
                loop.shutdown()
            }
        }
        do { try loop.start() } catch { output("guest serve: \(error)\n"); return 1 }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                loop.join()
                done.resume()
            }
        }
        return holder.failed ? 1 : 0
    }
}

/// Keeps the server alive for the loop's lifetime (written on the loop thread, read after join).
private final class ServerHolder: @unchecked Sendable {
    var server: LocalAPIServer?
    var failed = false
}
