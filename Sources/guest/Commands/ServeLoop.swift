import Dispatch
import Foundation
import Glibc
import Transport

/// `guest serve [--listen HOST:PORT] [--allow-remote] [--token-file FILE] [--allow-origin ORIGIN] [--keep-alive-interval S]`: runs the local API until
/// SIGINT or SIGTERM. The CLI calls `run` in one line with the guest's router.
public enum ServeCommand {
    public static let help = """
        usage: guest serve [--listen HOST:PORT] [--allow-remote] [--token-file FILE] [--allow-origin ORIGIN]...
                           [--keep-alive-interval SECONDS]

        Serves the routed brain to local tools on the APIs they speak:
          OpenAI     POST /v1/chat/completions, POST /v1/responses (previous_response_id: the
                     last \(ResponseMemory.defaultMaxResponses) stored answers, in memory; store: false keeps none),
                     POST /v1/completions, GET /v1/models, GET /v1/models/{id}
          Anthropic  POST /v1/messages, POST /v1/messages/count_tokens (an estimate: UTF-8
                     bytes / 4, not the model's tokenizer)
          Ollama     POST /api/chat, POST /api/generate (suffix: fill-in-the-middle and raw:
                     a continuation, both by prompt on every route), POST /api/show,
                     GET /api/tags, GET /api/ps, GET /api/version, GET|HEAD /
          Embeddings POST /v1/embeddings, POST /api/embed, POST /api/embeddings: vectors of
                     the model named, from the Homebase that advertises it as an embedding
                     model, or the on-device model's (a second llama-server with --embeddings);
                     404 for a model no brain has, 502 when its brain fails (never another
                     model's vectors)
        /api/pull, /api/push, /api/create, /api/copy, /api/delete answer 501 naming the guest
        command instead (guest models pull|delete). Probes (show, ps, version, tags, models)
        answer from what the guest knows, never waiting on the relay.
        Refuses web pages: a Host that is not loopback (403), an Origin not allowed (403),
        a POST that is not Content-Type: application/json (415).
        Takes request bodies up to \(LocalAPIServer.mebibytes(LocalAPIServer.maxRequestBytes)) (413 beyond); images travel inline
        (data URLs, Ollama "images"), image URLs are never fetched (400).

          --listen HOST:PORT     where to listen (default 127.0.0.1:\(ServeConfiguration.defaultPort))
          --allow-remote         allow a non-loopback address (requires a token)
          --token-file FILE      require "Authorization: Bearer TOKEN", TOKEN the file's first line
                                 (created 0600 with a random token when missing; default: none,
                                 or $HOMEBASE_SERVE_TOKEN; clients send it as OPENAI_API_KEY,
                                 or x-api-key: ANTHROPIC_API_KEY)
          --token TOKEN          as --token-file, but visible to other users (warned)
          --keep-alive-interval SECONDS
                                 a streamed answer silent this long (a slow first token) gets a
                                 keep-alive its client ignores (SSE comment, Anthropic ping, an
                                 empty Ollama line); 0: none (default 5)
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
            case "--keep-alive-interval": config.keepAliveInterval = try ServeConfiguration.parseKeepAlive(try value("--keep-alive-interval"))
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
                           router: @escaping AnswerRouter, models: @escaping ModelLister, embedder: EmbeddingRouter? = nil,
                           page: PageSource? = nil, listening: @escaping @Sendable (Int) -> Void = { _ in }) async -> Int32 {
        // A client that hangs up mid-answer must not kill the process.
        signal(SIGPIPE, SIG_IGN)
        let loop: EventLoop
        do { loop = try EventLoop() } catch { output("guest serve: \(error)\n"); return 1 }
        let holder = ServerHolder()
        loop.execute {
            do {
                let server = try LocalAPIServer(loop: loop, configuration: config, router: router, models: models, embedder: embedder, page: page)
                holder.server = server
                for s in [SIGINT, SIGTERM] { try loop.onSignal(s) { loop.shutdown() } }
                let shown = config.host.contains(":") ? "[\(config.host)]" : config.host
                output("guest serve: listening on http://\(shown):\(server.port)  (OpenAI and Anthropic: /v1, Ollama: /api\(page == nil ? "" : ", page: /"))\n")
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
