// Generators for request v2 (#23): the request and sync-delta layouts, one chat message alone,
// the typed reply stream and the prefix hash of rich messages. As in WireCases.swift, fields are
// composed here by hand from the input values, so the checkers compare two descriptions.
import Basics
import Sealing
import Wire

private func h8(_ v: UInt8) -> String { hexString([v]) }
private func h16(_ v: UInt16) -> String { hexString([UInt8(v >> 8), UInt8(v & 0xFF)]) }
private func h32(_ v: UInt32) -> String { hexString((0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) }) }
private func h64(_ v: UInt64) -> String { hexString((0..<8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * $0)) }) }
private func hs(_ s: String) -> String { hexString(Array(s.utf8)) }
private func s16(_ s: String) -> String { h16(UInt16(s.utf8.count)) + hs(s) }
private func s32(_ s: String) -> String { h32(UInt32(s.utf8.count)) + hs(s) }

private let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
private let look = AppMessage.ToolCall(id: "call_1", name: "look", argumentsJSON: "{\"at\":\"left\"}")

/// The three rich messages and their layouts written out: an image question, a tool call, its result.
private let rich: [(AppMessage.ChatMessage, String)] = [
    (.init(role: .user, parts: [.text("What is this?"), .image(mediaType: "image/png", bytes: png)]),
     "02" + "00" + h16(2) + "01" + s32("What is this?") + "02" + s16("image/png") + h32(8) + hexString(png) + h16(0)),
    (.init(role: .assistant, parts: [], toolCalls: [look]),
     "03" + "00" + h16(0) + h16(1) + s16("call_1") + s16("look") + s32("{\"at\":\"left\"}")),
    (.init(role: .tool, parts: [.text("a cat")], toolCallID: "call_1"),
     "04" + "01" + h16(1) + "01" + s32("a cat") + s16("call_1") + h16(0)),
]

func inferenceV2Cases() throws -> [VectorCase] {
    try requestCases() + chatMessageCases() + replyEventCases() + prefixHashCases()
}

private func msg(_ name: String, _ comment: String, _ m: AppMessage, _ fields: [(String, String)]) throws -> VectorCase {
    VectorCase(name: "msg-" + name, kind: "app-message", expect: "success", comment: comment,
               fields: [("type", h8(m.typeCode))] + fields, payload: try m.encode())
}

private func requestCases() throws -> [VectorCase] {
    let rid = Bytes16.repeating(0x72), cid = Bytes16.repeating(0xC2), prefix = Bytes32.repeating(0x9A)
    var o = AppMessage.RequestOptions()
    o.maxTokens = 256; o.temperature = 0.25; o.continuation = "It is"; o.toolChoice = .function("look")
    o.generation.topP = 0.9; o.generation.topK = 40; o.generation.seed = -1; o.generation.stop = ["\n\n"]
    o.generation.responseFormat = .jsonSchema(name: "a", schemaJSON: "{}", strict: true); o.generation.extra = ["mirostat": "2"]
    let tool = AppMessage.ToolDefinition(name: "look", description: "Looks somewhere.", parametersJSON: "{\"type\":\"object\"}")
    let full = AppMessage.Request(requestID: rid, model: "llava:7b", conversationID: cid, prefixHash: prefix,
                                  messages: rich.map(\.0), inline: false, tools: [tool], options: o)
    // Option entries in key order, values written out.
    let options: [(UInt16, String)] = [
        (0x0001, h32(256)), (0x0002, h64((0.25).bitPattern)), (0x0003, h64((0.9).bitPattern)), (0x0004, h64(40)),
        (0x0006, h64(UInt64.max)), (0x000D, h16(1) + s16("\n\n")), (0x000E, "03" + s16("a") + "01" + s32("{}")),
        (0x000F, s16("mirostat") + s32("2")), (0x8001, s32("It is")), (0x8002, "04" + s16("look")),
    ]
    func head(_ r: AppMessage.Request) -> [(String, String)] {
        [("request-id", r.requestID.hex), ("version", "02"), ("model", hs(r.model)), ("conversation-id", r.conversationID.hex),
         ("prefix-hash", r.prefixHash.hex), ("inline", r.inline ? "01" : "00")]
    }
    let plain = AppMessage.Request(requestID: rid, model: "m", conversationID: cid, prefixHash: .zero,
                                   messages: [.init(role: .user, content: "hi")], inline: true)
    var later = AppMessage.RequestOptions()
    later.temperature = 0.5
    later.unknown = [.init(key: 0x0042, value: [1, 2, 3]), .init(key: 0x8043, value: [])]
    let skipping = AppMessage.Request(requestID: rid, model: "m", conversationID: cid, prefixHash: .zero,
                                      messages: [.init(role: .user, content: "hi")], inline: true, options: later)
    let delta = AppMessage.SyncDelta(conversationID: cid, basePrefixHash: .zero, appended: rich.map(\.0), resultingPrefixHash: prefix)
    return [
        try msg("request-v2", "parts with an image, a tool call and its result, a tool, every kind of option", .request(full),
                head(full) + rich.enumerated().map { ("message.\($0.offset)", $0.element.1) }
                + [("tool.0.name", hs(tool.name)), ("tool.0.description", hs(tool.description)), ("tool.0.parameters", hs(tool.parametersJSON))]
                + options.enumerated().flatMap { [("option.\($0.offset).key", h16($0.element.0)), ("option.\($0.offset).value", $0.element.1)] }),
        try msg("request-v2-plain", "no temperature and no limit: an empty options map (the engine's defaults apply)", .request(plain),
                head(plain) + [("message.0", "02" + "00" + h16(1) + "01" + s32("hi") + h16(0))]),
        try msg("request-v2-later-options", "options of a later version: 0x0042 skipped, 0x8043 critical (a host refuses)",
                .request(skipping),
                head(skipping) + [("message.0", "02" + "00" + h16(1) + "01" + s32("hi") + h16(0)),
                                  ("option.0.key", "0002"), ("option.0.value", h64((0.5).bitPattern)),
                                  ("option.1.key", "0042"), ("option.1.value", "010203"), ("option.2.key", "8043"), ("option.2.value", "")]),
        VectorCase(name: "msg-request-v3", kind: "app-message", expect: "success",
                   comment: "a later layout: only the request id and version are read (the host answers unsupported)",
                   fields: [("type", "16"), ("request-id", rid.hex), ("version", "03")],
                   payload: [0x16] + rid.bytes + [3]),
        try msg("sync-delta-v2", "rich messages appended from the empty prefix", .syncDelta(delta),
                [("conversation-id", cid.hex), ("base-prefix-hash", Bytes32.zero.hex), ("resulting-prefix-hash", prefix.hex)]
                + rich.enumerated().map { ("message.\($0.offset)", $0.element.1) }),
    ]
}

private func chatMessageCases() throws -> [VectorCase] {
    let names = ["image", "tool-call", "tool-result"]
    let comments = ["a user turn: text then a PNG image", "an assistant turn that calls a tool", "the tool's result, naming its call"]
    var cases: [VectorCase] = []
    for (i, (m, layout)) in rich.enumerated() {
        var fields: [(String, String)] = [("role", h8(m.role.rawValue)), ("layout", layout)]
        for (j, p) in m.parts.enumerated() {
            switch p {
            case .text(let t): fields += [("part.\(j).text", hs(t))]
            case .image(let type, let bytes): fields += [("part.\(j).media-type", hs(type)), ("part.\(j).image", hexString(bytes))]
            }
        }
        if let id = m.toolCallID { fields.append(("tool-call-id", hs(id))) }
        for (k, c) in m.toolCalls.enumerated() {
            fields += [("tool-call.\(k).id", hs(c.id)), ("tool-call.\(k).name", hs(c.name)), ("tool-call.\(k).arguments", hs(c.argumentsJSON))]
        }
        cases.append(VectorCase(name: "chat-message-" + names[i], kind: "chat-message", expect: "success", comment: comments[i],
                                fields: fields, payload: try m.encoded()))
    }
    return cases
}

private func replyEventCases() throws -> [VectorCase] {
    let events: [ReplyEvent] = [
        .ignoredOptions([0x0042]), .reasoning("hm"), .text("Grüß"),
        .toolCallDelta(.init(index: 0, id: "call_1", name: "look")), .toolCallDelta(.init(index: 0, arguments: "{\"at\":")),
        .toolCall(look),
    ]
    let bodies: [(UInt8, String)] = [
        (5, h16(1) + "0042"), (2, hs("hm")), (1, hs("Grüß")), (3, h16(0) + "03" + s16("call_1") + s16("look")),
        (3, h16(0) + "00" + hs("{\"at\":")), (4, s16("call_1") + s16("look") + s32("{\"at\":\"left\"}")),
    ]
    let fields = bodies.enumerated().flatMap { [("event.\($0.offset).kind", h8($0.element.0)), ("event.\($0.offset).body", $0.element.1)] }
    let unknown: [UInt8] = [0x7F, 0, 0, 0, 2, 0xAB, 0xCD] + (try ReplyEvent.encode([.text("ok")]))
    return [
        VectorCase(name: "reply-events", kind: "reply-events", expect: "success",
                   comment: "ignored options, reasoning, text, a tool call's deltas and the whole call",
                   fields: fields, payload: try ReplyEvent.encode(events)),
        VectorCase(name: "reply-events-logprobs", kind: "reply-events", expect: "success",
                   comment: "text, then its tokens' logprobs: one with its bytes and two alternatives, one without either",
                   fields: [("event.0.kind", "01"), ("event.0.body", hs("Hi!")), ("event.1.kind", "06"),
                            ("event.1.body", h16(2) + s16("Hi") + h64((-0.25).bitPattern) + "01" + h16(2) + "4869" + "02"
                                + s16("Hi") + h64((-0.25).bitPattern) + "00" + s16("Ho") + h64((-1.5).bitPattern) + "00"
                                + s16("!") + h64((-0.0).bitPattern) + "00" + "00")],
                   payload: try ReplyEvent.encode([.text("Hi!"), .logprobs([
                       .init(token: "Hi", logprob: -0.25, bytes: [0x48, 0x69], top: [.init(token: "Hi", logprob: -0.25), .init(token: "Ho", logprob: -1.5)]),
                       .init(token: "!", logprob: -0.0),
                   ])])),
        VectorCase(name: "reply-events-unknown-kind", kind: "reply-events", expect: "success",
                   comment: "a record of a later kind (0x7f) is skipped by its length",
                   fields: [("event.0.kind", "7f"), ("event.0.body", "abcd"), ("event.1.kind", "01"), ("event.1.body", hs("ok"))],
                   payload: unknown),
    ]
}

private func prefixHashCases() throws -> [VectorCase] {
    // Plain text keeps the version 1 formula; a rich message hashes its version 2 encoding.
    let messages: [AppMessage.ChatMessage] = [.init(role: .system, content: "Be brief.")] + rich.map(\.0)
    var h = ConversationHash.empty
    var fields: [(String, String)] = []
    for (i, m) in messages.enumerated() {
        let encoded = try m.encoded()
        h = m.isPlainText ? ConversationHash.extend(h, role: m.role.rawValue, content: m.content)
                          : ConversationHash.extend(h, encodedMessage: encoded)
        fields += [("message.\(i)", hexString(encoded)), ("hash.\(i)", hexString(h))]
    }
    return [VectorCase(name: "prefix-hash-v2", kind: "prefix-hash-v2", expect: "success",
                       comment: "a plain system message (version 1 formula), then an image, a tool call and its result (version 2)",
                       fields: fields, payload: h)]
}
