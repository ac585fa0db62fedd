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
    private let holder = ServerHolder()

    init(brain: any ChatProvider, models: [ListedModel] = ["fake-brain"],
         configuration: ServeConfiguration = ServeConfiguration(port: 0), embedder: EmbeddingRouter? = nil) throws {
        (loop, port) = try startServer(holder, brain: brain, models: models, configuration: configuration, embedder: embedder)
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
