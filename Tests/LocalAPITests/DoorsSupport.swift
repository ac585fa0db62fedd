import Dispatch
import Foundation
import Glibc
import Inference
import Synchronization
import Testing
import Transport
@testable import LocalAPI

/// A `LocalAPIServer` on its own loop thread with a chosen model list (and details), for the
/// endpoints of #17. As `ServeHarness`, plus the list.
final class DoorsHarness: @unchecked Sendable {
    let loop: EventLoop
    let port: UInt16
    private let holder = Holder()
    private final class Holder: @unchecked Sendable { var server: LocalAPIServer? }

    init(brain: any ChatProvider, models: [ListedModel] = ["fake-brain"],
         configuration: ServeConfiguration = ServeConfiguration(port: 0), embedder: EmbeddingRouter? = nil) throws {
        signal(SIGPIPE, SIG_IGN)
        loop = try EventLoop()
        try loop.start()
        let result = Mutex<Result<UInt16, any Error>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let (loop, holder) = (self.loop, self.holder)
        loop.execute {
            let r = Result {
                let server = try LocalAPIServer(loop: loop, configuration: configuration,
                                                router: { _ in RoutedAnswer(provider: brain, metadata: ["route": "test"]) },
                                                models: { models }, embedder: embedder)
                holder.server = server
                return server.port
            }
            result.withLock { $0 = r }
            ready.signal()
        }
        guard ready.wait(timeout: .now() + .seconds(30)) == .success else { throw TestSetupError("loop did not start the server") }
        do { port = try result.withLock { $0! }.get() } catch { loop.shutdown(); loop.join(); throw error }
    }

    var base: String { "http://127.0.0.1:\(port)" }

    func stop() { loop.shutdown(); loop.join() }
}

/// A clearly labelled fake brain that says nothing until `open()` is called, then answers
/// with `events`. Never opened: it never answers (a Homebase that is gone, a long first token).
final class GatedBrain: ChatProvider, @unchecked Sendable {
    let brain: BrainKind = .ownHomebase
    let events: [ChatEvent]
    private let opened = Mutex(false)
    private let asked = Mutex(0)

    init(events: [ChatEvent] = FakeBrain.hello) { self.events = events }

    func open() { opened.withLock { $0 = true } }
    var requests: Int { asked.withLock { $0 } }

    func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        asked.withLock { $0 += 1 }
        let events = self.events
        return AsyncThrowingStream { out in
            let task = Task {
                while !self.opened.withLock({ $0 }) {
                    do { try await Task.sleep(for: .milliseconds(10)) } catch { out.finish(throwing: error); return }
                }
                for e in events { out.yield(e) }
                out.finish()
            }
            out.onTermination = { _ in task.cancel() }
        }
    }
}

/// A request with any headers, through the Inference HTTP client; the body read to its end.
func send(_ url: String, method: String = "POST", body: String? = nil, headers: [(String, String)] = []) async throws
    -> (status: Int, response: HTTPStreamResponse, body: String)
{
    var h = [HTTPHeader("Content-Type", "application/json")]
    for (k, v) in headers { h.append(HTTPHeader(k, v)) }
    let r = try await HTTPStreamClient().send(HTTPStreamRequest(method: method, url: url, headers: h, body: body.map { Array($0.utf8) }))
    var bytes: [UInt8] = []
    do { for try await chunk in r.body { bytes += chunk } } catch InferenceError.interrupted {}
    return (r.status, r, String(decoding: bytes, as: UTF8.self))
}
