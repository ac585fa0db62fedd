import CommandLineKit
import GuestAgent
import LocalAPI
import Inference
import RelayRouting

/// `guest chat` through a running `guest serve` of the same data directory (`serve.json`): the
/// relay keeps one link per device key, so a chat opening its own would replace serve's. The
/// output is the same as on chat's own path: the text as it comes, then the dim brain line.
extension ChatCommand {
    /// Where chat's own path takes over: the conversation so far and, when serve failed in the
    /// middle of a turn, that turn and the text already shown (its own path continues it).
    struct Resume {
        var messages: [ChatMessage] = []
        var pending: (line: String, partial: String)?
    }

    /// A client of this data directory's running serve, nil when none runs (a stale
    /// `serve.json` is logged and ignored).
    static func serveClient(_ inv: Invocation, wait: Duration) throws -> ServeClient? {
        let paths = try inv.configuration.paths
        let log = EventLog(path: paths.log)
        guard let serve = ServeFile.live(paths, why: { log.write("chat: \($0)") }) else { return nil }
        // Serve runs the same watchdog ladder, then maybe starts the engine: a generous ceiling.
        let ladder = try inv.linkOptions.watchdog
        let token = inv.environment["HOMEBASE_SERVE_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
            ?? serve.tokenFile.flatMap { try? TokenFile.load($0, create: false).token }
        return ServeClient(serve: serve, wait: wait, firstOutput: ladder.accept + ladder.firstOutput + .seconds(60), token: token)
    }

    /// Every turn through serve. Nil when the chat is over; else where chat's own path resumes
    /// (serve did not answer within `--serve-wait`, or failed mid-answer), said in the log.
    static func viaServe(_ prompt: String?, _ o: Options, _ client: ServeClient, log paths: GuestPaths) async -> Resume? {
        let log = EventLog(path: paths.log)
        let name = "guest serve (pid \(client.serve.pid), \(client.serve.baseURL))"
        do {
            try await client.check()
        } catch {
            log.write("chat: \(name) did not answer (\(error)): using this command's own relay links")
            return Resume()
        }
        log.write("chat: asking \(name); opening no relay link")
        o.clock.linked()
        var messages: [ChatMessage] = []
        while let line = prompt ?? ask() {
            if line == "/exit" { break }
            if line.isEmpty { continue }
            let request = ChatRequest(model: o.model, messages: messages + [ChatMessage(role: .user, content: line)],
                                      maxTokens: o.maxTokens)
            o.clock.ask()
            do {
                let answer = try await client.run(request) { o.clock.text(); Console.out($0) }
                messages = request.messages + [ChatMessage(role: .assistant, content: answer.text)]
                log.write("chat: answered through \(name) by \(answer.metadata.brain.rawValue)")
                Console.out("\n" + Console.dim("[\(o.clock.measured(answer.metadata).summaryLine)]") + "\n")
            } catch {
                log.write("chat: \(name) failed (\(error.why)) after \(error.partial.utf8.count) bytes: "
                          + "using this command's own relay links")
                return Resume(messages: messages, pending: (line, error.partial))
            }
            if prompt != nil { break }
        }
        return nil
    }
}
