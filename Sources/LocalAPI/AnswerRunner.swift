import Inference
import Transport

/// Runs one routed answer and writes it to the client, streamed or whole.
///
/// A streamed answer's head is sent with its first event, so a brain that fails before saying
/// anything is answered with a plain 502 and a JSON error. After the head, a failure ends the
/// body with the API's error line and no terminator: it never looks like a complete answer.
/// The client going away cancels the brain's stream (the engine stops generating).
///
/// Keep-alives: while a streamed answer has written nothing for `keepAlive` (the first token is
/// slow, or a fallback is starting over), the head is sent and the encoder's keep-alive written,
/// so clients that give up on a silent connection after 30 s stay. They decide nothing: the
/// guest's own first-token rung still ends a brain that never speaks. A failure after a
/// keep-alive is the stream's error line, not a 502. Non-streamed answers send nothing early.
enum AnswerRunner {
    static let brainHeader = "X-Homebase-Brain"

    private enum Item: Sendable { case event(ChatEvent), tick }

    /// The brain header and the `homebase` object are read when they are written (the head with
    /// the first event, the object with the last): a provider that falls back (`AnswerReporting`)
    /// names the brain that answered, not the one first chosen.
    /// `extra` (CORS for an allowed origin) goes on every answer. `keepAlive` nil: none sent.
    static func run<E: AnswerEncoding>(_ request: APIChatRequest, route: RoutedAnswer, encoder: E,
                                       headers extra: HTTPHeaders = HTTPHeaders(), keepAlive: Duration? = nil,
                                       responder: HTTPResponder) {
        var headers: HTTPHeaders {
            var h = extra
            h.add(brainHeader, route.provider.brain.rawValue)
            return h
        }
        let task = Task {
            var enc = encoder
            var started = false
            func start() {
                guard !started else { return }
                var h = headers
                h.add("Content-Type", E.contentType)
                h.add("Cache-Control", "no-cache")
                responder.start(status: .ok, headers: h)
                started = true
            }
            let (items, sink) = AsyncThrowingStream<Item, any Error>.makeStream()
            let producer = Task {
                do {
                    for try await event in route.provider.stream(request.chat) { sink.yield(.event(event)) }
                    sink.finish()
                } catch { sink.finish(throwing: error) }
            }
            let ticker = Task {
                guard request.stream, let interval = keepAlive, interval > .zero else { return }
                while !Task.isCancelled {
                    do { try await Task.sleep(for: interval) } catch { return }
                    sink.yield(.tick)
                }
            }
            defer { producer.cancel(); ticker.cancel() }
            do {
                var done: (String, Usage?)?
                var quiet = true
                for try await item in items {
                    guard case .event(let event) = item else {
                        if quiet { start(); responder.write(enc.keepAlive()) }
                        quiet = true
                        continue
                    }
                    quiet = false
                    if request.stream {
                        start()
                        if case .done = event { enc.homebase = route.homebaseObject }
                        responder.write(enc.stream(event))
                    } else {
                        enc.collect(event)
                    }
                    if case .done(let reason, let usage) = event { done = (reason, usage); break }
                }
                guard let (reason, usage) = done else { throw InferenceError.interrupted }
                if request.stream {
                    responder.finish()
                } else {
                    var h = headers
                    h.add("Content-Type", "application/json")
                    enc.homebase = route.homebaseObject
                    responder.respond(HTTPResponse(status: .ok, headers: h, body: enc.whole(finishReason: reason, usage: usage)))
                }
            } catch LocalAPIError.unservable(let message) where !started {
                // The router's refusal (#23): the client's request, not a brain, is the problem.
                var h = headers
                h.add("Content-Type", "application/json")
                responder.respond(HTTPResponse(status: HTTPStatus(code: 422, reason: "Unprocessable Content"), headers: h,
                                               body: E.errorBody(message)))
            } catch {
                let message = (error as? InferenceError)?.description ?? "the answer failed"
                if started {
                    responder.write(enc.streamError(message))
                    responder.abort()
                } else {
                    var h = headers
                    h.add("Content-Type", "application/json")
                    responder.respond(HTTPResponse(status: HTTPStatus(code: 502, reason: "Bad Gateway"), headers: h,
                                                   body: E.errorBody(message)))
                }
            }
        }
        responder.onClose { task.cancel() }
    }
}
