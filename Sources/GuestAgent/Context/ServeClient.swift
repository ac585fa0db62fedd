import Foundation
import Inference

/// `guest chat` beside a running `guest serve` of the same data directory: the request goes to
/// serve's OpenAI-compatible endpoint (serve routes it, with its own relay link and fallbacks),
/// so chat opens no relay link that would replace serve's. The answer comes back as `Answer`,
/// named as serve names it (`X-Homebase-Brain`, the final `homebase` object), timed here.
public struct ServeClient: Sendable {
    public let serve: ServeFile
    /// Longest wait for serve to show it is alive (`GET /v1/models`) before chat uses its own path.
    public var wait: Duration
    /// Longest wait for the answer's head (serve sends it with the first text: engine start,
    /// the Homebase's first output).
    public var firstOutput: Duration
    /// `Authorization: Bearer` when serve requires a token (`HOMEBASE_SERVE_TOKEN`).
    public var token: String?
    let http = HTTPStreamClient()

    public init(serve: ServeFile, wait: Duration = .seconds(2), firstOutput: Duration = .seconds(120), token: String? = nil) {
        self.serve = serve; self.wait = wait; self.firstOutput = firstOutput; self.token = token
    }

    var authorization: [HTTPHeader] { token.map { [HTTPHeader("Authorization", "Bearer \($0)")] } ?? [] }

    /// Throws (`InferenceError`) when serve does not answer `GET /v1/models` within `wait`.
    public func check() async throws {
        let t = HTTPTimeouts(connect: wait, firstByte: wait, idle: wait)
        let r = try await http.send(HTTPStreamRequest(url: serve.baseURL + "/v1/models", headers: authorization, timeouts: t))
        try await r.requireSuccess()
        _ = try await r.collect(limit: 1 << 20)
    }

    /// What was shown before a failure: chat's own path continues from there.
    public struct Failure: Error, Sendable {
        public var partial: String
        public var why: String
    }

    /// Streams the answer through `onText`. Throws `Failure` (with the text already shown).
    public func run(_ request: ChatRequest, onText: @Sendable (String) -> Void) async throws(Failure) -> Answer {
        var reader = ServeStreamReader(start: .now)
        do {
            var body: [String: Any] = ["model": request.model, "stream": true, "stream_options": ["include_usage": true],
                                       "messages": request.messages.map { ["role": $0.role.rawValue, "content": $0.content] }]
            if let m = request.maxTokens { body["max_tokens"] = m }
            let bytes = try JSONSerialization.data(withJSONObject: body)
            let t = HTTPTimeouts(connect: wait, firstByte: firstOutput, idle: firstOutput)
            let r = try await http.send(HTTPStreamRequest(
                method: "POST", url: serve.baseURL + "/v1/chat/completions",
                headers: authorization + [HTTPHeader("Content-Type", "application/json")], body: Array(bytes), timeouts: t))
            try await r.requireSuccess()
            reader.headerBrain = r.header("X-Homebase-Brain")
            var parser = SSEParser()
            for try await chunk in r.body {
                for event in parser.parse(chunk) {
                    if let text = try reader.read(event.data) { onText(text) }
                    if reader.finished { return try reader.answer() }
                }
            }
            throw InferenceError.interrupted
        } catch {
            let why = (error as? InferenceError)?.description ?? "\(error)"
            throw Failure(partial: reader.text, why: why)
        }
    }
}

/// Reads serve's SSE events (OpenAI chunks, then `[DONE]`) into text and `AnswerMetadata`.
struct ServeStreamReader {
    let start: ContinuousClock.Instant
    var headerBrain: String?
    var text = ""
    var chunks = 0
    var firstText: ContinuousClock.Instant?
    var lastText: ContinuousClock.Instant?
    var homebase: [String: String] = [:]
    var usage: (prompt: Int, completion: Int)?
    var finishReason: String?
    var finished = false

    /// One event's data; the text it carries, if any. A `{"error":...}` event throws.
    mutating func read(_ data: String, now: ContinuousClock.Instant = .now) throws -> String? {
        if data == "[DONE]" { finished = true; return nil }
        guard let o = try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any] else {
            throw InferenceError.malformed("serve sent an event that is not JSON")
        }
        if let e = o["error"] as? [String: Any] { throw InferenceError.inBand(e["message"] as? String ?? "serve failed") }
        if let h = o["homebase"] as? [String: String] { homebase = h }
        if let u = o["usage"] as? [String: Any], let c = u["completion_tokens"] as? Int {
            usage = (u["prompt_tokens"] as? Int ?? 0, c)
        }
        let choice = (o["choices"] as? [[String: Any]])?.first
        if let reason = choice?["finish_reason"] as? String { finishReason = reason }
        guard let piece = (choice?["delta"] as? [String: Any])?["content"] as? String, !piece.isEmpty else { return nil }
        if firstText == nil { firstText = now }
        lastText = now
        chunks += 1
        text += piece
        return piece
    }

    /// The metadata as chat's own runner would give it: serve's brain and fallbacks, times seen here.
    func answer() throws -> Answer {
        guard let brain = BrainKind(rawValue: homebase["brain"] ?? headerBrain ?? "") else {
            throw InferenceError.malformed("serve named no brain")
        }
        var m = AnswerMetadata(brain: brain, routeReason: homebase["route_reason"] ?? "")
        let tried = (homebase["fell_back_from"] ?? "").split(separator: ",").compactMap { BrainKind(rawValue: String($0)) }
        m.tried = tried.enumerated().map { i, b in
            .init(brain: b, failure: .reported(i == tried.count - 1 ? homebase["fallback_reason"] ?? "" : "see serve's log"))
        }
        let streamed = firstText.flatMap { a in lastText.map { (from: a, to: $0) } }
        m.measure(start: start, firstToken: firstText, streamed: streamed, chunks: chunks,
                  completionTokens: usage?.completion, promptTokens: usage?.prompt, finishReason: finishReason)
        return Answer(text: text, metadata: m)
    }
}
