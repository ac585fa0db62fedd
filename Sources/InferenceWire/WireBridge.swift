import Inference
import Wire

/// Why a chat request cannot cross the wire. Messages name the limit, never content.
public enum BridgeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Over a size limit of `Limits` (per image, per request).
    case tooLarge(String)
    /// The Wire encoder refused a field (a string over its length prefix, a non-finite number).
    case notEncodable(WireError)

    public var description: String {
        switch self {
        case .tooLarge(let why): why
        case .notEncodable(let e): "the request cannot be encoded: \(e)"
        }
    }
}

/// The one conversion between the inference vocabulary (`ChatRequest`, `ChatMessage`,
/// `ChatEvent`) and the wire schema (`AppMessage.Request`, its messages, `ReplyEvent`), both
/// directions. The guest (RelayRouting) and the host (HomebaseAgent) use nothing else.
///
/// Hidden here: a `maxTokens` of 0 or less is "no limit" (absent on the wire); a tool-call
/// index is clamped to a u16; `.done` travels as the `done` message, not as an event; a logprob
/// that is not finite is dropped, and alternatives past `Limits.maxTopLogprobs` (no engine sends
/// more), so every event encodes.
public enum WireBridge {
    // MARK: messages

    public static func wire(_ m: ChatMessage) -> AppMessage.ChatMessage {
        let role: AppMessage.Role = switch m.role {
        case .system: .system
        case .user: .user
        case .assistant: .assistant
        case .tool: .tool
        }
        return AppMessage.ChatMessage(
            role: role,
            parts: m.parts.map { p in
                switch p {
                case .text(let t): .text(t)
                case .image(let i): .image(mediaType: i.mediaType, bytes: i.bytes)
                }
            },
            toolCallID: m.toolCallID,
            toolCalls: m.toolCalls)
    }

    public static func chat(_ m: AppMessage.ChatMessage) -> ChatMessage {
        let role: ChatMessage.Role = switch m.role {
        case .system: .system
        case .user: .user
        case .assistant: .assistant
        case .tool: .tool
        }
        return ChatMessage(
            role: role,
            parts: m.parts.map { p in
                switch p {
                case .text(let t): .text(t)
                case .image(let type, let bytes): .image(ImageData(mediaType: type, bytes: bytes))
                }
            },
            toolCallID: m.toolCallID,
            toolCalls: m.toolCalls)
    }

    // MARK: requests

    /// The wire request for `chat`, carrying `messages` (the plan's new messages, already in
    /// wire form) after `prefixHash`. Refused over `Limits.maxImageBytes` per image or
    /// `Limits.maxRequestBytes` encoded, before anything is sent.
    public static func request(_ chat: ChatRequest, requestID: Bytes16, conversationID: Bytes16, prefixHash: Bytes32,
                               messages: [AppMessage.ChatMessage], inline: Bool) throws(BridgeError) -> AppMessage.Request {
        let request = AppMessage.Request(
            requestID: requestID, model: chat.model, conversationID: conversationID, prefixHash: prefixHash,
            messages: messages, inline: inline,
            tools: chat.tools,
            options: options(chat))
        if let why = limitProblem(messages) { throw .tooLarge(why) }
        let size: Int
        do { size = try AppMessage.request(request).encode().count } catch { throw .notEncodable(error) }
        guard size <= Limits.maxRequestBytes else {
            throw .tooLarge("the request is \(mib(size)) encoded; a Homebase takes at most \(mib(Limits.maxRequestBytes)) per request")
        }
        return request
    }

    /// The chat request a host runs: `conversation` is the whole conversation (the replica's
    /// prefix and the request's messages).
    public static func chatRequest(_ r: AppMessage.Request, conversation: [AppMessage.ChatMessage]) -> ChatRequest {
        let o = r.options
        return ChatRequest(model: r.model, messages: conversation.map(chat), tools: r.tools,
                           toolChoice: o.toolChoice, maxTokens: o.maxTokens.map { Int($0) }, temperature: o.temperature,
                           options: o.generation, continuation: o.continuation)
    }

    static func options(_ chat: ChatRequest) -> AppMessage.RequestOptions {
        var o = AppMessage.RequestOptions()
        o.maxTokens = chat.maxTokens.flatMap { $0 > 0 ? UInt32(clamping: $0) : nil }
        o.temperature = chat.temperature
        o.generation = chat.options
        o.continuation = chat.continuation
        o.toolChoice = chat.toolChoice
        return o
    }

    /// What breaks the image limits in `messages` (a request's, or a whole conversation a host
    /// is about to run), naming the limit; nil when within them.
    public static func limitProblem(_ messages: [AppMessage.ChatMessage]) -> String? {
        var total = 0
        for m in messages {
            for case .image(_, let bytes) in m.parts {
                if bytes.count > Limits.maxImageBytes {
                    return "an image is \(mib(bytes.count)); a Homebase takes at most \(mib(Limits.maxImageBytes)) per image"
                }
                total += bytes.count
            }
        }
        if total > Limits.maxRequestBytes {
            return "the images add up to \(mib(total)); a Homebase takes at most \(mib(Limits.maxRequestBytes)) of images per request"
        }
        return nil
    }

    static func mib(_ n: Int) -> String {
        n % (1 << 20) == 0 ? "\(n >> 20) MiB" : String(Double(n * 10 / (1 << 20)) / 10) + " MiB"
    }

    // MARK: reply events

    /// The stream event for an engine event; nil for `.done` (it travels as the `done` message).
    public static func replyEvent(_ e: ChatEvent) -> ReplyEvent? {
        switch e {
        case .text(let t): .text(t)
        case .reasoning(let t): .reasoning(t)
        case .toolCallDelta(let d):
            .toolCallDelta(.init(index: UInt16(clamping: d.index), id: d.id, name: d.name, arguments: d.arguments))
        case .toolCall(let c): .toolCall(c)
        case .logprobs(let entries): .logprobs(entries.filter(\.logprob.isFinite).map(encodable))
        case .done: nil
        }
    }

    /// `e` with only the alternatives a `logprobs` record carries: finite, at most `Limits.maxTopLogprobs`.
    static func encodable(_ e: TokenLogprob) -> TokenLogprob {
        var e = e
        e.top = Array(e.top.filter(\.logprob.isFinite).prefix(Limits.maxTopLogprobs))
        return e
    }

    /// The chat event for a stream event; nil for what is not one (`ignored-options`, unknown kinds).
    public static func chatEvent(_ e: ReplyEvent) -> ChatEvent? {
        switch e {
        case .text(let t): .text(t)
        case .reasoning(let t): .reasoning(t)
        case .toolCallDelta(let d):
            .toolCallDelta(ToolCallDelta(index: Int(d.index), id: d.id, name: d.name, arguments: d.arguments))
        case .toolCall(let c): .toolCall(c)
        case .logprobs(let entries): .logprobs(entries)
        case .ignoredOptions, .unknown: nil
        }
    }

    public static func done(_ d: AppMessage.Done) -> ChatEvent {
        .done(finishReason: d.finishReason,
              usage: Usage(promptTokens: Int(d.promptTokens), completionTokens: Int(d.completionTokens)))
    }

    public static func done(requestID: Bytes16, finishReason: String, usage: Usage?) -> AppMessage.Done {
        AppMessage.Done(requestID: requestID, promptTokens: UInt32(clamping: usage?.promptTokens ?? 0),
                        completionTokens: UInt32(clamping: usage?.completionTokens ?? 0), finishReason: finishReason)
    }
}
