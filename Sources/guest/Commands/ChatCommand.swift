import CommandLineKit
import AgentKit
import GuestAgent
import Inference
import Routing

/// `guest chat`: one answer to PROMPT, or an interactive chat that keeps the conversation.
enum ChatCommand {
    static let command = Command(
        name: "chat", summary: "ask the routed brain (falls back to this device on any failure)",
        usage: "[--tools [--allow-dir DIR]...] [--demo-model] [PROMPT]",
        details: "Without PROMPT: an interactive chat that keeps the conversation; /exit or end of input ends it.\n"
            + "After each answer a dim line names the brain, the time to first token (from the command's start,\n"
            + "the relay link's set-up shown apart; later questions from their Enter), tokens/s and the longest\n"
            + "silence inside the answer when over a second. After a second without text, stderr says who is awaited.\n"
            + "Example: guest chat --tools --demo-model \"what time is it in Istanbul?\" (a scripted model\n"
            + "calls the real current_time tool; no engine needed).",
        flags: [Flag("--tools", "run the agent loop with the built-in tools on this device; the model's turns go to the routed brain when it can use tools (else the on-device model)"),
                Flag("--allow-dir", "DIR", repeatable: true, "a directory the file tools may read (with --tools)"),
                Flag("--demo-model", "use the scripted demo model (labelled; not real inference)"),
                Flag("--max-tokens", "N", "longest answer in tokens"),
                Flag("--model", "NAME", "model name sent when the route does not pin one (default: default)"),
                Flag("--waiting-after", "TIME", "say on stderr which brain is awaited after this long without text (default 1s)"),
                Flag("--serve-wait", "TIME", "beside a running guest serve: longest wait for it before chat opens its own links (default 2s)")]
            + Flag.relayLink,
        run: run)

    struct Options {
        var tools: Bool
        var allowDirs: [String]
        var maxTokens: Int?
        var model: String
        /// The reader's clock: the dim line's figures and the waiting notice.
        var clock: ReaderClock
    }

    static func run(_ inv: Invocation) async throws -> Int32 {
        let a = inv.arguments
        var maxTokens: Int?
        if let raw = a.value("--max-tokens") {
            guard let n = Int(raw), n > 0 else { throw inv.usageError("--max-tokens takes a positive whole number") }
            maxTokens = n
        }
        if a.has("--allow-dir") && !a.has("--tools") && !a.has("--demo-model") {
            throw inv.usageError("--allow-dir only applies with --tools")
        }
        let options = Options(tools: a.has("--tools"), allowDirs: a.all("--allow-dir"), maxTokens: maxTokens,
                              model: a.value("--model") ?? "default",
                              clock: ReaderClock(noticeAfter: try inv.positiveDuration("--waiting-after") ?? .seconds(1),
                                                 notice: ReaderClock.stderrNotice))
        let prompt = inv.positionals.isEmpty ? nil : inv.positionals.joined(separator: " ")
        if a.has("--demo-model") { return try await demo(prompt, options) }
        // Beside a running `guest serve` of this data directory: ask serve, whose relay link
        // this command would otherwise replace; its own path only if serve does not answer.
        let serveWait = try inv.positiveDuration("--serve-wait") ?? .seconds(2)
        var resume = Resume()
        if !options.tools, let serve = try serveClient(inv, wait: serveWait) {
            guard let left = await viaServe(prompt, options, serve, log: try inv.configuration.paths) else { return 0 }
            resume = left
        }
        return try await inv.withLinkedContext { context, _ in
            if options.tools { return try await tools(prompt, options, context) }
            return try await chat(prompt, options, context, resume: resume)
        }
    }

    /// The routed chat through the fallback runner.
    /// `resume`: the conversation so far and a turn serve left unfinished (its text shown).
    static func chat(_ prompt: String?, _ o: Options, _ context: GuestContext, resume: Resume = Resume()) async throws -> Int32 {
        let runner = context.runner
        var messages = resume.messages
        var pending = resume.pending
        o.clock.linked()
        while let line = pending?.line ?? prompt ?? ask() {
            if line == "/exit" { break }
            if line.isEmpty { continue }
            let shown = pending?.partial ?? ""
            pending = nil
            messages.append(ChatMessage(role: .user, content: line))
            let request = ChatRequest(model: o.model, messages: messages, maxTokens: o.maxTokens,
                                      continuation: shown.isEmpty ? nil : shown)
            o.clock.ask()
            let answer = try await runner.run(request, onText: { o.clock.text(); Console.out($0) },
                                              onBrain: { o.clock.asking($0) })
            messages.append(ChatMessage(role: .assistant, content: shown + answer.text))
            Console.out("\n" + Console.dim("[\(o.clock.measured(answer.metadata).summaryLine)]") + "\n")
            if prompt != nil { break }
        }
        return 0
    }

    /// The agent loop: its tools run here, always; the model's turns go where the router sends
    /// a request with tools (`Router.decide(for:)`: the Homebase when its model can use them and
    /// `tools.remote` is not off), else on the on-device model as before.
    static func tools(_ prompt: String?, _ o: Options, _ context: GuestContext) async throws -> Int32 {
        let decision = context.router.decide(RequestNeeds(tools: true))
        if let refusal = decision.refusal {
            Console.out(refusal.description + "\n")
            return 1
        }
        if decision.route.brain != .onDevice { return try await routedTools(prompt, o, context) }
        let local = decision.localModel
        guard case .model(let target) = context.factory.resolver.resolve(local) else {
            if case .none(let why) = context.factory.resolver.resolve(local) { Console.out(FloorProvider.notice(why) + "\n") }
            return 1
        }
        let model = GGUFModel(supervisor: context.supervisor)
        try await model.load(target)
        try await agentLoop(prompt, o, model) { "[on-device (agent loop, runtime gguf)]" }
        return 0
    }

    /// Each prompt (only `prompt`, when given) through the agent loop, `footer` after each answer.
    static func agentLoop(_ prompt: String?, _ o: Options, _ model: any Model, footer: () -> String) async throws {
        let config = AgentConfig(params: GenerationParams(maxTokens: o.maxTokens))
        while let line = prompt ?? ask() {
            if line == "/exit" { break }
            if !line.isEmpty {
                _ = try await AgentChat.run(prompt: line, model: model, allowedDirectories: o.allowDirs,
                                            output: { Console.out($0) }, config: config)
                Console.out(Console.dim(footer()) + "\n")
            }
            if prompt != nil { break }
        }
    }

    /// The agent loop with its model turns on the routed brain (with the runner's fallback).
    static func routedTools(_ prompt: String?, _ o: Options, _ context: GuestContext) async throws -> Int32 {
        let model = RoutedAgentModel(runner: context.runner, model: o.model)
        try await agentLoop(prompt, o, model) {
            "[\(model.lastTurn.map { $0.summaryLine } ?? "no turn answered"); agent loop and tools on this device]"
        }
        return 0
    }

    /// The scripted demo model: labelled on every answer. With `--tools` a question about the
    /// time runs the real `current_time` tool through the agent loop (see `DemoScript`).
    static func demo(_ prompt: String?, _ o: Options) async throws -> Int32 {
        while let line = prompt ?? ask() {
            if line == "/exit" { break }
            if !line.isEmpty {
                let model = FakeModel(script: DemoScript.steps(prompt: line, tools: o.tools))
                _ = try await AgentChat.run(prompt: line, model: model, allowedDirectories: o.allowDirs,
                                            output: { Console.out($0) })
                Console.out(Console.dim("[demo model: scripted, not real inference]") + "\n")
            }
            if prompt != nil { break }
        }
        return 0
    }

    static func ask() -> String? {
        Console.out("> ")
        return readLine(strippingNewline: true)
    }
}
