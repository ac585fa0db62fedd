import Inference
import Transport

/// Runs one routed answer and writes it to the client, streamed or whole.
///
/// A streamed answer's head is sent with its first event, so a brain that fails before saying
/// anything is answered with a plain 502 and a JSON error. After the head, a failure ends the
/// body with the API's error line and no terminator: it never looks like a complete answer.
/// The client going away cancels the brain's stream (the engine stops generating).
enum AnswerRunner {
    static let brainHeader = "X-Homebase-Brain"

    /// The brain header and the `homebase` object are read when they are written (the head with
    /// the first event, the object with the last): a provider that falls back (`AnswerReporting`)
    /// names the brain that answered, not the one first chosen.
    /// `extra` (CORS for an allowed origin) goes on every answer.
    static func run<E: AnswerEncoding>(_ request: APIChatRequest, route: RoutedAnswer, encoder: E,
                                       headers extra: HTTPHeaders = HTTPHeaders(), responder: HTTPResponder) {
        var headers: HTTPHeaders {
            var h = extra
            h.add(brainHeader, route.provider.brain.rawValue)
            return h
        }
        let task = Task {
            var enc = encoder
            var started = false
            do {
                var done: (String, Usage?)?
                for try await event in route.provider.stream(request.chat) {
                    if request.stream {
                        if !started {
                            var h = headers
                            h.add("Content-Type", E.contentType)
                            h.add("Cache-Control", "no-cache")
                            responder.start(status: .ok, headers: h)
                            started = true
                        }
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
