import CommandLineKit
import GuestAgent
import Inference
import LocalAPI
import Wire

/// `guest serve`: the routed brain for every local tool, on an OpenAI- and an Ollama-compatible
/// API. Each request goes through the router and the fallback runner, exactly like `guest chat`
/// (the relay link open, so the Homebase answers when it is the route).
enum ServeCommandLine {
    static let command = Command(
        name: "serve", summary: "serve the routed brain to local tools (OpenAI, Anthropic and Ollama compatible API)",
        usage: "[--listen HOST:PORT] [--allow-remote] [--token-file FILE] [--allow-origin ORIGIN]... [--keep-alive-interval TIME]",
        details: "Endpoints:\n"
            + "  OpenAI     POST /v1/chat/completions, POST /v1/responses, GET|DELETE /v1/responses/{id},\n"
            + "             GET /v1/responses/{id}/input_items, POST /v1/completions, GET /v1/models, GET /v1/models/{id}\n"
            + "  Anthropic  POST /v1/messages, POST /v1/messages/count_tokens (an estimate: UTF-8 bytes / 4)\n"
            + "  Ollama     POST /api/chat, POST /api/generate, POST /api/show, GET /api/tags, GET /api/ps, GET /api/version, GET|HEAD /\n"
            + "  Embeddings POST /v1/embeddings, POST /api/embed, POST /api/embeddings: vectors of the model named, from the\n"
            + "             Homebase (own, or one joined) whose advert lists it as an embedding model (through the relay), else\n"
            + "             the on-device model's (a second llama-server with --embeddings, started on first use); 404 for a model\n"
            + "             no brain has, 502 when the Homebase fails (not connected, gone mid-wait: at once, --embedding-timeout,\n"
            + "             its error): never another model's vectors\n"
            + "/v1/responses keeps the last \(ServeConfiguration().storedResponses) stored answers in memory for previous_response_id "
            + "and GET /v1/responses/{id}\n(store: false keeps none: 404, as a deleted or forgotten one, or any after a restart).\n"
            + "Model lists (/v1/models, /api/tags) name embedding models too: a Homebase's advertised for embeddings and the\n"
            + "on-device model; /api/show gives their capabilities (\"embedding\"; an embedding-only model says only that).\n"
            + "/api/generate's suffix (fill-in-the-middle) and raw (continuation) are done by prompt, the same on every route.\n"
            + "/api/pull, push, create, copy and delete answer 501 naming the guest command instead (guest models pull|delete).\n"
            + "Probes (show, ps, version, tags, models) answer from what the guest knows, never waiting on the relay.\n"
            + "Clients: Claude Code ANTHROPIC_BASE_URL=http://127.0.0.1:11435; Codex a provider with base_url .../v1 and\n"
            + "wire_api = \"responses\"; Continue provider ollama with apiBase http://127.0.0.1:11435; Open WebUI\n"
            + "OLLAMA_BASE_URL=http://127.0.0.1:11435 (README: \"The guest's other doors\").\n"
            + "A browser at / gets a page: a chat that streams, each answer's brain, reason and speed, and the status live\n"
            + "(GET /homebase/status: guest status --json's value; GET /homebase/events: it again every --status-interval).\n"
            + "Its settings, cloud keys and on-device models change through GET|POST /homebase/act/NAME, with the code of\n"
            + "guest settings, guest keys and guest models (a pull answers NDJSON progress lines, then its reply).\n"
            + "Every answer names its brain: the X-Homebase-Brain header and a final `homebase` object. Loopback only\n"
            + "unless --allow-remote with a token (--token-file or HOMEBASE_SERVE_TOKEN). Runs until SIGINT or SIGTERM.\n"
            + "Web pages are refused: a Host that is not localhost, 127.x or [::1] (403, DNS rebinding), an Origin not\n"
            + "serve's own nor allowed with --allow-origin (403), a POST not sent as Content-Type: application/json (415).\n"
            + "Request bodies up to \(LocalAPIServer.mebibytes(LocalAPIServer.maxRequestBytes)) are taken (images inline: data URLs, Ollama \"images\"); a larger one is\n"
            + "answered 413 naming the limit. Image URLs are never fetched (400). Through the relay an image may be up to\n"
            + "10 MiB and a request's images 16 MiB in all (protocol/SPEC.md, Limits); a larger one is answered 413 too.\n"
            + "With --token-file, clients send the file's token: OPENAI_API_KEY=$(cat FILE) for the openai library,\n"
            + "ANTHROPIC_API_KEY (x-api-key) for the anthropic one;\n"
            + "guest chat reads it through serve.json.\n"
            + "Other guest commands of this data directory (chat, status) find serve through serve.json and open no\n"
            + "relay link of their own (the relay keeps one per device key); commands that must send mail link briefly.\n"
            + "Example: guest serve --listen 127.0.0.1:11435, then OpenAI(base_url=\"http://127.0.0.1:11435/v1\")",
        flags: [Flag("--listen", "HOST:PORT", "where to listen (default 127.0.0.1:\(ServeConfiguration.defaultPort); port 0 picks one)"),
                Flag("--allow-remote", "allow a non-loopback address (requires a token)"),
                Flag("--token-file", "FILE", "require Authorization: Bearer with the file's first line; a missing file is made 0600 "
                     + "with a random token (default: none, or $HOMEBASE_SERVE_TOKEN)"),
                Flag("--token", "TOKEN", "as --token-file, but visible to other users in the process list (warned)"),
                Flag("--keep-alive-interval", "TIME", "a streamed answer silent this long (a slow first token) gets a "
                     + "keep-alive the client ignores; 0: none (default \(DurationGrammar.text(ServeConfiguration.defaultKeepAliveInterval)))"),
                Flag("--embedding-timeout", "TIME", "wait this long for a Homebase's embeddings, then answer 502 "
                     + "(default \(EmbeddingRouting.defaultTimeout.components.seconds)s)"),
                Flag("--warm-check", "TIME", "keep the on-device engine running (the warm floor, setting engine.warm): "
                     + "started now and checked this often; 0: only at start (default 30s)"),
                Flag("--status-interval", "TIME", "how often the page at / gets the status pushed (default 2s)"),
                Flag("--allow-origin", "ORIGIN", repeatable: true, "let web pages of ORIGIN (http://localhost:3000) call serve, "
                     + "with CORS; repeatable (default: none)")]
            + Flag.relayLink,
        run: run)

    static func run(_ inv: Invocation) async throws -> Int32 {
        guard inv.positionals.isEmpty else { throw inv.usageError("unexpected argument \(inv.positionals[0].prefix(40))") }
        // Every flag is read before anything opens: a bad one is refused at once (exit 2).
        let config = try configuration(inv)
        let statusEvery = try statusInterval(inv), warmEvery = try warmCheck(inv), embeddingWait = try embeddingTimeout(inv)
        return try await inv.withLinks { context, links in
            let runner = context.runner, paths = context.paths, log = context.log
            let retake = ServeAnnouncement.onRetakeSignal(links, log: log)
            defer { retake.cancel() }
            let warm = context.keepWarm(every: warmEvery)
            defer { warm.cancel() }
            let embeddings = LocalEmbeddings(context: context)
            let routing = EmbeddingRouting(context: context, local: embeddings, timeout: embeddingWait)
            let status = await ServeLoop.run(
                configuration: config, output: { Console.out($0) },
                router: { _ in RoutedAnswer(provider: RunnerBrain(runner: runner)) },
                models: { ServableModels.list(context).map { ListedModel(name: $0.name, brain: $0.brain, details: details($0)) } },
                embedder: { request in
                    switch await routing.embed(model: request.model, inputs: request.inputs) {
                    case .vectors(let v, let tokens, let model, let brain):
                        .success(EmbeddingAnswer(model: model, vectors: v, promptTokens: tokens, brain: brain))
                    case .unknownModel(let why): .failure(.unknownModel(why))
                    case .failed(let why): .failure(.failed(why))
                    }
                },
                page: PageSource(interval: statusEvery, act: PageActions(context: context, links: links).act) {
                    StatusJSON.line(GuestStatus.gather(context, links: links))
                },
                listening: { ServeAnnouncement.announce(paths, host: config.host, port: $0, tokenFile: config.tokenFile, log: log) })
            ServeAnnouncement.withdraw()
            await embeddings.stop()
            return status
        }
    }

    /// `/api/show`'s facts of a listed model: the advert's, when its Homebase advertised it, and
    /// the capabilities the brain has (`ServableModels.Entry.capabilityNames`).
    static func details(_ e: ServableModels.Entry) -> ModelDetails? {
        guard let m = e.info else {
            return e.brain == .onDevice || e.capabilities != nil ? ModelDetails(capabilities: e.capabilityNames) : nil
        }
        return ModelDetails(family: m.family, parameterSize: m.parameterSize, quantization: m.quantization,
                            contextLength: m.contextLength > 0 ? Int(m.contextLength) : nil, capabilities: e.capabilityNames)
    }

    /// `--warm-check TIME`: 0 (warm at start only) to 1h.
    static func warmCheck(_ inv: Invocation) throws -> Duration {
        try inv.duration("--warm-check", in: .zero ... .seconds(3600)) ?? .seconds(30)
    }

    /// `--status-interval TIME`: how often the page's event stream pushes the status (10ms to 1h).
    static func statusInterval(_ inv: Invocation) throws -> Duration {
        try inv.duration("--status-interval", in: .milliseconds(10) ... .seconds(3600)) ?? .seconds(2)
    }

    /// `--embedding-timeout TIME`: 1s to 1h.
    static func embeddingTimeout(_ inv: Invocation) throws -> Duration {
        try inv.duration("--embedding-timeout", in: .seconds(1) ... .seconds(3600)) ?? EmbeddingRouting.defaultTimeout
    }

    /// `--keep-alive-interval TIME`: 0 (none) to 1h.
    static func keepAliveInterval(_ inv: Invocation) throws -> Duration? {
        guard let d = try inv.duration("--keep-alive-interval", in: .zero ... .seconds(3600)) else {
            return ServeConfiguration.defaultKeepAliveInterval
        }
        return d == .zero ? nil : d
    }

    /// Said on stderr when a token is given as an argument.
    static let tokenInArgvWarning = "warning: --token puts the token in the process list and shell history, "
        + "where other users of this machine can read it; use --token-file FILE or $HOMEBASE_SERVE_TOKEN\n"

    static func configuration(_ inv: Invocation) throws -> ServeConfiguration {
        var c = ServeConfiguration()
        if let listen = inv.arguments.value("--listen") {
            do { (c.host, c.port) = try ServeConfiguration.parseListen(listen) } catch { throw inv.usageError(error.description) }
        }
        c.allowRemote = inv.arguments.has("--allow-remote")
        c.keepAliveInterval = try keepAliveInterval(inv)
        for origin in inv.arguments.all("--allow-origin") {
            do { try c.allow(origin: origin) } catch { throw inv.usageError(error.description) }
        }
        if let file = inv.arguments.value("--token-file") {
            guard !inv.arguments.has("--token") else { throw inv.usageError("give --token-file or --token, not both") }
            do {
                let loaded = try TokenFile.load(file)
                (c.token, c.tokenFile) = (loaded.token, file)
                if loaded.created { Console.err("guest serve: wrote a new token to \(file) (mode 0600)\n") }
            } catch { throw inv.usageError(error.description) }
        } else if let token = inv.arguments.value("--token") {
            Console.err(tokenInArgvWarning)
            c.token = token
        } else {
            c.token = inv.environment["HOMEBASE_SERVE_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        }
        do { try c.validate() } catch { throw inv.usageError(error.description) }
        return c
    }
}
