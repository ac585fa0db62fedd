import Dispatch
import Foundation
import Glibc
import LocalAPI
import Transport

/// `guest serve`'s run: the local API until SIGINT or SIGTERM (`ServeCommandLine` reads the flags).
enum ServeLoop {
    /// Serves until SIGINT or SIGTERM; the event loop runs on its own thread and the wait blocks
    /// no thread of the cooperative pool (answers run there).
    /// Exit codes: 0 after a signal, 1 when the port cannot be bound. `listening` hears the
    /// bound port once requests can arrive (the guest announces it in `serve.json`).
    static func run(configuration config: ServeConfiguration, output: @escaping @Sendable (String) -> Void,
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
