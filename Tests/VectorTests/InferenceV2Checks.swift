// Checkers for the request v2 vectors (#23): one chat message alone, the typed reply stream,
// the prefix hash of rich messages. Requests and sync-deltas v2 are app-message vectors (WireChecks).
import CSodium
import Basics
import Sealing
import Wire

let inferenceV2Checkers: [String: VectorChecker] = [
    "chat-message": checkChatMessage,
    "reply-events": checkReplyEvents,
    "prefix-hash-v2": checkPrefixHashV2,
]

private func str(_ s: String) -> String { hexString(Array(s.utf8)) }
private func bad(_ v: VectorFile, _ why: String) -> VectorFile.Bad { VectorFile.Bad(description: "\(v.path): \(why)") }

/// Every field of the file equals the decoded one and the other way round.
private func same(_ v: VectorFile, _ got: [(String, String)]) throws {
    let dict = Dictionary(got, uniquingKeysWith: { a, _ in a })
    for (k, want) in v.fields where dict[k] != want.lowercased() {
        throw bad(v, "field \(k): file says \(want), decoded \(dict[k] ?? "nothing")")
    }
    for k in dict.keys where v.fields[k] == nil { throw bad(v, "decoded field \(k) missing from the file") }
}

private func keys(_ stem: String, _ suffixes: [String]) -> Set<String> {
    Set((0..<16).flatMap { i in suffixes.map { $0.isEmpty ? "\(stem).\(i)" : "\(stem).\(i).\($0)" } })
}

@Sendable private func checkChatMessage(_ v: VectorFile) throws {
    try v.requireOnly(Set(["role", "layout", "tool-call-id"]).union(keys("part", ["text", "media-type", "image"]))
        .union(keys("tool-call", ["id", "name", "arguments"])))
    guard v.expect == "success" else { throw bad(v, "chat-message knows only success") }
    let m = try AppMessage.ChatMessage.decode(v.payload)
    var got: [(String, String)] = [("role", hexString([m.role.rawValue])), ("layout", hexString(v.payload))]
    for (j, p) in m.parts.enumerated() {
        switch p {
        case .text(let t): got.append(("part.\(j).text", str(t)))
        case .image(let type, let bytes): got += [("part.\(j).media-type", str(type)), ("part.\(j).image", hexString(bytes))]
        }
    }
    if let id = m.toolCallID { got.append(("tool-call-id", str(id))) }
    for (k, c) in m.toolCalls.enumerated() {
        got += [("tool-call.\(k).id", str(c.id)), ("tool-call.\(k).name", str(c.name)), ("tool-call.\(k).arguments", str(c.argumentsJSON))]
    }
    try same(v, got)
    guard try m.encoded() == v.payload else { throw bad(v, "re-encoding differs from the payload") }
}

@Sendable private func checkReplyEvents(_ v: VectorFile) throws {
    try v.requireOnly(keys("event", ["kind", "body"]))
    guard v.expect == "success" else { throw bad(v, "reply-events knows only success") }
    // The records by hand: kind u8 | length u32 | body.
    var got: [(String, String)] = []
    var at = 0, i = 0
    let p = v.payload
    while at < p.count {
        guard p.count - at >= 5 else { throw bad(v, "a record header is cut") }
        let n = p[at + 1..<at + 5].reduce(0) { $0 << 8 | Int($1) }
        guard p.count - at - 5 >= n else { throw bad(v, "a record body is cut") }
        got += [("event.\(i).kind", hexString([p[at]])), ("event.\(i).body", hexString(Array(p[at + 5..<at + 5 + n])))]
        at += 5 + n
        i += 1
    }
    try same(v, got)
    // The reader, fed one byte at a time, sees the same records; known ones re-encode to them.
    var reader = ReplyEventReader()
    var events: [ReplyEvent] = []
    for b in p { events += try reader.append([b]) }
    guard reader.isAtBoundary, events.count == i else { throw bad(v, "the reader found \(events.count) events, not \(i)") }
    for (j, e) in events.enumerated() {
        if case .unknown(let kind) = e {
            guard hexString([kind]) == v.fields["event.\(j).kind"] else { throw bad(v, "event \(j): unknown kind differs") }
            continue
        }
        let bytes = try ReplyEvent.encode([e])
        guard hexString([bytes[0]]) == v.fields["event.\(j).kind"], hexString(Array(bytes.dropFirst(5))) == v.fields["event.\(j).body"] else {
            throw bad(v, "event \(j) re-encodes differently")
        }
    }
}

@Sendable private func checkPrefixHashV2(_ v: VectorFile) throws {
    try v.requireOnly(keys("message", [""]).union(keys("hash", [""])))
    guard v.expect == "success" else { throw bad(v, "prefix-hash-v2 knows only success") }
    var h = [UInt8](repeating: 0, count: 32), i = 0
    while let encoded = try v.optionalHexField("message.\(i)") {
        let m = try AppMessage.ChatMessage.decode(encoded)
        var input: [UInt8]
        if m.isPlainText {
            // SHA-256("homebase conversation v1" || 0x00 || prefix || role || u32 len || content)
            let content = Array(m.content.utf8)
            input = Array("homebase conversation v1".utf8) + [0] + h + [m.role.rawValue]
            input += (0..<4).map { UInt8(truncatingIfNeeded: content.count >> (24 - 8 * $0)) } + content
        } else {
            // SHA-256("homebase conversation v2" || 0x00 || prefix || encoded message)
            input = Array("homebase conversation v2".utf8) + [0] + h + encoded
        }
        var next = [UInt8](repeating: 0, count: 32)
        _ = crypto_hash_sha256(&next, input, UInt64(input.count))
        let code = m.isPlainText ? ConversationHash.extend(h, role: m.role.rawValue, content: m.content)
                                 : ConversationHash.extend(h, encodedMessage: encoded)
        guard code == next, next == (try v.hexField("hash.\(i)")) else { throw bad(v, "hash.\(i)") }
        h = next
        i += 1
    }
    guard h == v.payload else { throw bad(v, "the last hash differs from the payload") }
}
