// #23's payloads: a tool-call round trip (call out, result back, answer) and a 5 MB image's time
// to first token, each straight to the engine beside guest → relay → Homebase → the same engine.
import BenchSupport
import Foundation
import Inference
import Synchronization

struct PayloadsResult {
    var directTools = Samples(), relayedTools = Samples(), addedTools = Samples()
    var directImage = Samples(), relayedImage = Samples(), addedImage = Samples()
    var fellBack = 0
}

enum Payloads {
    static let tool = ToolDefinition(name: "get_time", description: "the current time",
                                     parametersJSON: #"{"type":"object","properties":{},"additionalProperties":false}"#)
    static let ask = ChatMessage(role: .user, content: "What time is it?")

    /// First turn: one tool, `required`, no parallel calls, and the assistant prefill of the
    /// call's opening tag (this llama.cpp build needs it to force a call from the random tiny model).
    static func callTurn(_ model: String) -> ChatRequest {
        var options = GenerationOptions()
        options.extra["parallel_tool_calls"] = "false"
        return ChatRequest(model: model, messages: [ask, .init(role: .assistant, content: "<tool_call>\n")], tools: [tool],
                           toolChoice: .required, maxTokens: 64, temperature: 0, options: options)
    }

    /// Second turn: the call and its result; the answer is text (max_tokens `answerTokens`).
    static func answerTurn(_ model: String, _ call: ToolCall) -> ChatRequest {
        ChatRequest(model: model, messages: [ask, .init(role: .assistant, content: "", toolCalls: [call]),
                                             .init(role: .tool, content: "12:00", toolCallID: call.id)],
                    tools: [tool], maxTokens: answerTokens, temperature: 0)
    }

    static let answerTokens = 16
    static let imageBytes = 5 << 20

    /// 5 MB: the PNG signature, then random bytes.
    static func image() -> ImageData {
        var rng = SystemRandomNumberGenerator()
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes.reserveCapacity(imageBytes)
        while bytes.count < imageBytes { bytes.append(UInt8.random(in: 0...255, using: &rng)) }
        return ImageData(mediaType: "image/png", bytes: bytes)
    }

    static func imageRequest(_ model: String, _ image: ImageData) -> ChatRequest {
        ChatRequest(model: model, messages: [.init(role: .user, parts: [.text("what is this?"), .image(image)])], maxTokens: 8)
    }

    /// Both turns straight to the engine: send to the end of the answer, ms.
    static func directRoundTrip(_ client: OpenAIChatClient) async throws -> Double {
        let start = ContinuousClock.now
        var call: ToolCall?, finish: String?
        for try await e in client.stream(callTurn("tiny")) {
            switch e {
            case .toolCall(let c): if call == nil { call = c }
            case .done(let f, _): finish = f
            default: break
            }
        }
        guard let call, finish == "tool_calls" else { throw BenchError("the engine made no tool call (finish \(finish ?? "none"))") }
        for try await _ in client.stream(answerTurn("tiny", call)) {}
        return ms(.now - start)
    }

    /// Both turns through the guest's runner (router, relay-routed provider, relay, Homebase).
    static func relayedRoundTrip(_ guest: BenchGuest) async throws -> Double? {
        let runner = guest.runner()
        let start = ContinuousClock.now
        let calls = Calls()
        let first = try await runner.run(callTurn("default"), onToolCall: { calls.add($0) })
        guard first.metadata.brain == .ownHomebase, !first.metadata.fellBack else { return nil }
        guard let call = calls.first, first.metadata.finishReason == "tool_calls" else {
            throw BenchError("the relayed turn made no tool call (finish \(first.metadata.finishReason ?? "none"))")
        }
        let second = try await runner.run(answerTurn("default", call))
        guard second.metadata.brain == .ownHomebase, !second.metadata.fellBack else { return nil }
        return ms(.now - start)
    }

    /// Call to the first text of the image request, straight to `client`, ms.
    static func directImage(_ client: OpenAIChatClient, _ image: ImageData) async throws -> Double {
        let start = ContinuousClock.now
        var first: ContinuousClock.Instant?
        for try await e in client.stream(imageRequest("tiny", image)) {
            if case .text(let t) = e, !t.isEmpty, first == nil { first = .now }
        }
        guard let first else { throw BenchError("the capture peer's answer had no text") }
        return ms(first - start)
    }

    /// Tool rows on `guest` (the Homebase serves the engine); then the image rows after
    /// `swap` has put the capture peer in front as the Homebase's runtime (a new guest sees its
    /// vision advert), and swapped back (`swap` stops the guest it replaces). Warm-up: 2 pairs each, not counted.
    static func run(_ o: Options, engineURL: String, guest: BenchGuest,
                    swap: (_ to: String, _ from: String) async throws -> BenchGuest,
                    world: World) async throws -> (PayloadsResult, BenchGuest) {
        var r = PayloadsResult()
        let direct = OpenAIChatClient(.init(baseURL: engineURL))
        for i in -2..<o.payloadRuns {
            var d = 0.0, g: Double?
            try await alternating(i, { d = try await directRoundTrip(direct) }, { g = try await relayedRoundTrip(guest) })
            guard i >= 0 else { continue }
            guard let g else { r.fellBack += 1; continue }
            r.directTools.add(d); r.relayedTools.add(g); r.addedTools.add(g - d)
        }

        guard let enginePort = URL(string: engineURL)?.port else { throw BenchError("no port in \(engineURL)") }
        let peer = try world.startCapturePeer(target: enginePort)
        let seeing = try await swap(peer.url, engineURL)
        let image = image()
        let toPeer = OpenAIChatClient(.init(baseURL: peer.url))
        let runner = seeing.runner()
        for i in -2..<o.payloadRuns {
            var d = 0.0, g: Timed?
            try await alternating(i, { d = try await directImage(toPeer, image) },
                                  { g = try await seeing.ask(runner, imageRequest("default", image)) })
            guard i >= 0 else { continue }
            guard let g, g.brain == .ownHomebase, !g.metadata.fellBack, let t = g.ttftMs else { r.fellBack += 1; continue }
            r.directImage.add(d); r.relayedImage.add(t); r.addedImage.add(t - d)
        }
        let back = try await swap(engineURL, peer.url)
        world.procs.kill(peer.child)
        return (r, back)
    }

    static func print(_ r: PayloadsResult, _ o: Options) {
        func row(_ what: String, _ s: Samples) -> String { "| \(what) | \(s.count) | \(fmt(s.p50, 2)) | \(fmt(s.p99, 2)) |" }
        Swift.print("""
            ### #23: a tool round trip and a 5 MB image through the relay

            Paired runs after 2 warm-up pairs, alternating which path goes first. Tool round trip: \
            llama-server (`--jinja`) on the tiny model; one tool, `tool_choice` required, \
            `parallel_tool_calls` false, the assistant prefill `<tool_call>\\n`, max_tokens 64, temperature 0 \
            (finish `tool_calls`), then the call and its result back, answer max_tokens \(answerTokens); \
            timed from the first send to the end of the answer. 5 MB image: time to first token of one \
            request carrying a 5 MB PNG-headed random image; **capture peer in front of llama-server \
            (Tests/EndToEndTests/peers/vision_capture_engine.py); measures carrying 5 MB, not vision**: \
            the same peer answers both paths, so the difference is the path's cost.

            | what | runs | p50 ms | p99 ms |
            |---|---:|---:|---:|
            \(row("tool round trip: client → llama-server (direct)", r.directTools))
            \(row("tool round trip: guest → relay → Homebase → llama-server", r.relayedTools))
            \(row("tool round trip: added per pair", r.addedTools))
            \(row("5 MB image TTFT: client → capture peer (direct)", r.directImage))
            \(row("5 MB image TTFT: guest → relay → Homebase → capture peer", r.relayedImage))
            \(row("5 MB image TTFT: added per pair", r.addedImage))
            \(r.fellBack > 0 ? "\n\(r.fellBack) relayed run(s) were not answered by the Homebase and are left out.\n" : "")
            """)
    }
}

/// Tool calls heard from the runner's callback.
final class Calls: Sendable {
    private let list = Mutex<[ToolCall]>([])
    func add(_ c: ToolCall) { list.withLock { $0.append(c) } }
    var first: ToolCall? { list.withLock { $0.first } }
}
