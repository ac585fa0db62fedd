// packageRoot, pythonPath and runJSONPeer are TestSupport's, re-exported for every file of this
// target.
@_exported import TestSupport
import Dispatch
import Foundation
import Glibc
import Inference
import Synchronization
import Testing
import Transport
@testable import LocalAPI

/// This target's setup errors are TestSupport's.
typealias TestSetupError = SetupError

/// A clearly labelled fake brain: answers with scripted events, or fails after them.
/// Records the requests it was asked.
final class FakeBrain: ChatProvider, @unchecked Sendable {
    let brain: BrainKind
    let events: [ChatEvent]
    let failure: InferenceError?
    private let asked = Mutex<[ChatRequest]>([])

    init(brain: BrainKind = .onDevice, events: [ChatEvent], failure: InferenceError? = nil) {
        self.brain = brain; self.events = events; self.failure = failure
    }

    var requests: [ChatRequest] { asked.withLock { $0 } }

    func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        asked.withLock { $0.append(request) }
        let (events, failure) = (self.events, self.failure)
        return AsyncThrowingStream { out in
            for e in events { out.yield(e) }
            out.finish(throwing: failure)
        }
    }

    static let hello: [ChatEvent] = [.text("Hel"), .text("lo, "), .text("Zürich ☀️"),
                                     .done(finishReason: "stop", usage: Usage(promptTokens: 7, completionTokens: 3))]
}

/// A `LocalAPIServer` on its own loop thread, answering with `brain`.
final class ServeHarness: @unchecked Sendable {
    let loop: EventLoop
    let port: UInt16
    private let holder = ServerHolder()

    init(brain: any ChatProvider, configuration: ServeConfiguration = ServeConfiguration(port: 0), page: PageSource? = nil) throws {
        (loop, port) = try startServer(holder, brain: brain, models: ["fake-brain", "fake-brain:tools"],
                                       configuration: configuration, page: page)
    }

    var base: String { "http://127.0.0.1:\(port)" }

    func stop() { loop.shutdown(); loop.join() }
}

/// Keeps a harness's server alive (it is made on the loop's thread).
final class ServerHolder: @unchecked Sendable { var server: LocalAPIServer? }

/// A new loop thread and, made on it, a `LocalAPIServer` routing every request to `brain`
/// (route "test") and listing `models`; kept in `holder`. The loop and the server's port.
func startServer(_ holder: ServerHolder, brain: any ChatProvider, models: [ListedModel], configuration: ServeConfiguration,
                 embedder: EmbeddingRouter? = nil, page: PageSource? = nil) throws -> (EventLoop, UInt16) {
    signal(SIGPIPE, SIG_IGN)
    let loop = try EventLoop()
    try loop.start()
    let result = Mutex<Result<UInt16, any Error>?>(nil)
    let ready = DispatchSemaphore(value: 0)
    loop.execute {
        let r = Result {
            let server = try LocalAPIServer(loop: loop, configuration: configuration,
                                            router: { _ in RoutedAnswer(provider: brain, metadata: ["route": "test"]) },
                                            models: { models }, embedder: embedder, page: page)
            holder.server = server
            return server.port
        }
        result.withLock { $0 = r }
        ready.signal()
    }
    guard ready.wait(timeout: .now() + .seconds(30)) == .success else { throw TestSetupError("loop did not start the server") }
    do { return (loop, try result.withLock { $0! }.get()) } catch { loop.shutdown(); loop.join(); throw error }
}

/// Runs a Python client peer; returns its JSON line. The wait happens on a Dispatch thread, never
/// on the cooperative pool: the server under test answers on that pool (2 threads here).
func runClient(_ script: String, _ args: [String]) async throws -> [String: Any] {
    let line: String = try await withCheckedThrowingContinuation { done in
        DispatchQueue.global().async { done.resume(with: Result { try runClientBlocking(script, args) }) }
    }
    guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
        throw TestSetupError("\(script) printed no JSON: \(line)")
    }
    return o
}

private func runClientBlocking(_ script: String, _ args: [String]) throws -> String {
    try runJSONPeer(testsFile("LocalAPITests/peers/\(script)"), args)
}

/// A raw request through the Inference HTTP client: status, headers, whole body.
func fetch(_ url: String, method: String = "GET", body: String? = nil, token: String? = nil) async throws
    -> (status: Int, headers: HTTPStreamResponse, body: String)
{
    var headers = [HTTPHeader("Content-Type", "application/json")]
    if let token { headers.append(HTTPHeader("Authorization", "Bearer \(token)")) }
    let r = try await HTTPStreamClient().send(HTTPStreamRequest(method: method, url: url, headers: headers,
                                                                body: body.map { Array($0.utf8) }))
    // A body cut short (a failed stream) is returned as far as it came.
    var bytes: [UInt8] = []
    do { for try await chunk in r.body { bytes += chunk } } catch InferenceError.interrupted {}
    return (r.status, r, String(decoding: bytes, as: UTF8.self))
}
