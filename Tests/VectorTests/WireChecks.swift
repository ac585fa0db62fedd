// Checkers for the Wire vector kinds (fields listed in protocol/spec-wire.md, "Test vectors"):
// relay-frame, app-message, parts, auth-transcript. Each decodes the payload, renders what it
// decoded as the file's fields (written independently of the generator) and compares them
// exactly, then re-encodes and compares with the payload.
import Wire
import Basics

let wireCheckers: [String: VectorChecker] = [
    "relay-frame": checkRelayFrame,
    "app-message": checkAppMessage,
    "parts": checkParts,
    "auth-transcript": checkAuthTranscript,
    "device-proof-binding": checkDeviceProofBinding,
    "account-order-binding": checkOrderBinding,
]

private func be<T: FixedWidthInteger>(_ v: T) -> String { hexString((0..<T.bitWidth / 8).reversed().map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) }) }
private func str(_ s: String) -> String { hexString(Array(s.utf8)) }
private func fail(_ v: VectorFile, _ why: String) -> VectorFile.Bad { VectorFile.Bad(description: "\(v.path): \(why)") }

/// The `expect` name of each decode failure.
private func failureName(_ e: WireError) -> String {
    switch e {
    case .truncated: "truncated"
    case .trailingBytes: "trailing bytes"
    case .tooLarge: "oversize"
    case .badClass: "bad class"
    case .invalidValue: "invalid value"
    case .invalidUTF8: "invalid utf-8"
    case .collapseKeyOnLive: "collapse key on live"
    case .badPartIndex: "bad part index"
    case .duplicatePart: "duplicate"
    case .inconsistentParts: "inconsistent"
    case .tooManyInFlight: "too many in flight"
    case .badInviteCode: "bad invite code"
    }
}

private func compare(_ v: VectorFile, _ got: [(String, String)]) throws {
    let dict = Dictionary(got, uniquingKeysWith: { a, _ in a })
    for (k, want) in v.fields where dict[k] != want.lowercased() {
        throw fail(v, "field \(k): file says \(want), decoded \(dict[k] ?? "nothing")")
    }
    for k in dict.keys where v.fields[k] == nil { throw fail(v, "decoded field \(k) missing from the file") }
}

private func indexed(_ stem: String, _ suffixes: [String]) -> Set<String> {
    Set((0..<16).flatMap { i in suffixes.map { $0.isEmpty ? "\(stem).\(i)" : "\(stem).\(i).\($0)" } })
}

private let frameKeys: Set<String> = [
    "type", "version", "nonce", "origin", "device-key", "signature", "account-key", "account-signature", "token",
    "server-time-ms", "mailbox-capacity", "max-ttl", "reason", "text", "recipient", "sender", "class", "frame-id",
    "ttl", "collapse-key", "sealed", "held-ms", "value", "code", "reconnect-after-ms",
    "roster-version", "not-after", "order-kind", "subject", "uses", "peer-key",
]

private func frameFields(_ f: RelayFrame) -> [(String, String)] {
    var out = [("type", be(f.typeCode))]
    switch f {
    case .challenge(let c): out += [("version", be(c.version)), ("nonce", hexString(c.nonce.bytes)), ("origin", str(c.origin))]
    case .auth(let a):
        out += [("device-key", hexString(a.deviceKey.bytes)), ("signature", hexString(a.signature.bytes))]
        if let p = a.account { out += [("account-key", hexString(p.accountKey.bytes)), ("account-signature", hexString(p.signature.bytes))] }
        if let t = a.admissionToken { out.append(("token", hexString(t))) }
    case .authOK(let o):
        out += [("server-time-ms", be(o.serverTimeMs)), ("mailbox-capacity", be(o.mailboxCapacity)), ("max-ttl", be(o.maxTTLSeconds))]
    case .authRefused(let r): out += [("reason", be(r.reason.rawValue)), ("text", str(r.text))]
    case .send(let s):
        out += [("recipient", hexString(s.recipient.bytes)), ("class", be(s.deliveryClass.rawValue)), ("frame-id", hexString(s.frameID.bytes)),
                ("ttl", be(s.ttlSeconds)), ("collapse-key", hexString(s.collapseKey)), ("sealed", hexString(s.sealed))]
    case .receive(let r):
        out += [("sender", hexString(r.sender.bytes)), ("class", be(r.deliveryClass.rawValue)), ("frame-id", hexString(r.frameID.bytes)),
                ("held-ms", be(r.heldMs)), ("sealed", hexString(r.sealed))]
    case .ack(let id), .notHere(let id), .stored(let id), .mailboxFull(let id), .dropped(let id): out.append(("frame-id", hexString(id.bytes)))
    case .queueEmpty, .unknown: break
    case .ping(let x), .pong(let x): out.append(("value", be(x)))
    case .error(let e): out += [("code", be(e.code.rawValue)), ("text", str(e.text))]
    case .restarting(let ms): out.append(("reconnect-after-ms", be(ms)))
    case .peerGone(let g): out += [("peer-key", hexString(g.peer.bytes)), ("reason", be(g.reason.rawValue))]
    case .deviceProof(let p):
        out += [("account-key", hexString(p.accountKey.bytes)), ("roster-version", be(p.rosterVersion)),
                ("not-after", be(p.notAfterSeconds)), ("account-signature", hexString(p.signature.bytes))]
    case .accountOrder(let o):
        out += [("account-key", hexString(o.accountKey.bytes)), ("order-kind", be(o.kind)), ("subject", hexString(o.subject.bytes)),
                ("roster-version", be(o.rosterVersion)), ("not-after", be(o.notAfterSeconds)), ("uses", be(o.uses)),
                ("account-signature", hexString(o.signature.bytes))]
    }
    return out
}

@Sendable private func checkRelayFrame(_ v: VectorFile) throws {
    try v.requireOnly(frameKeys)
    let frame: RelayFrame
    do { frame = try RelayFrame.decode(v.payload) } catch {
        guard failureName(error) == v.expect else { throw fail(v, "expected \(v.expect), got \(error)") }
        return
    }
    if case .unknown = frame {
        guard v.expect == "skipped" else { throw fail(v, "expected \(v.expect), got a skipped unknown type") }
    } else {
        guard v.expect == "success" else { throw fail(v, "expected \(v.expect), decoded \(frame)") }
    }
    try compare(v, frameFields(frame))
    guard case .unknown = frame else {
        var canonical = v.payload
        canonical[1] = 0  // senders write flags 0
        guard try frame.encode() == canonical else { throw fail(v, "re-encoding differs from the payload") }
        return
    }
}

private let messageKeys: Set<String> = Set([
    "type", "host-key", "sequence", "timestamp-ms", "signature", "signed-bytes", "request-id", "model", "conversation-id",
    "prefix-hash", "inline", "max-tokens", "temperature", "continuation", "text", "prompt-tokens", "completion-tokens",
    "finish-reason", "code", "message", "base-prefix-hash", "resulting-prefix-hash", "relay-url", "host-signing-key",
    "host-hpke-key", "invite-secret", "rate", "expires-ms", "token", "secret-proof", "device-record", "account-name",
    "grant-id", "reason", "model-id", "vision", "origin-device", "account-key", "version", "message-id", "index", "count",
    "total-length", "bytes", "code-id", "proof", "roster", "advert", "unproven-bytes", "tries-left", "relay-proof",
    "valid-ms", "max-tries", "result", "outcome", "wrong-tries", "tools", "since-ms",
]).union(indexed("model", ["", "tag", "family", "parameter-size", "quantization", "context-length", "capabilities"]))
    .union(indexed("message", ["role", "content", ""])).union(indexed("device", [""]))
    .union(indexed("tool", ["name", "description", "parameters"])).union(indexed("option", ["key", "value"]))
    .union(indexed("input", [""])).union(indexed("vector", [""])).union(["dimensions"]).union(indexed("alternate", [""]))
    .union(["action", "runtime", "completed", "total", "status"]).union(indexed("runtime", ["url", "kind", "abilities"]))
    .union(Set((0..<16).flatMap { i in indexed("runtime.\(i).model", ["name", "size", "flags"]) }))

private func chat(_ list: [AppMessage.ChatMessage]) -> [(String, String)] {
    list.enumerated().flatMap { i, m in [("message.\(i).role", be(m.role.rawValue)), ("message.\(i).content", str(m.content))] }
}

/// Version 2 messages, each as its whole encoding (its fields: the chat-message vectors).
private func richChat(_ list: [AppMessage.ChatMessage]) throws -> [(String, String)] {
    try list.enumerated().map { ("message.\($0.offset)", hexString(try $0.element.encoded())) }
}

private func tags(_ list: [String]) -> [(String, String)] { list.enumerated().map { ("model.\($0.offset)", str($0.element)) } }

private func messageFields(_ m: AppMessage) throws -> [(String, String)] {
    var out = [("type", be(m.typeCode))]
    switch m {
    case .advert(let a):
        out += [("host-key", hexString(a.hostKey.bytes)), ("sequence", be(a.sequence)), ("timestamp-ms", be(a.timestampMs)),
                ("signature", hexString(a.signature.bytes)), ("signed-bytes", hexString(try a.signedBytes()))]
        for (i, x) in a.models.enumerated() {
            out += [("model.\(i).tag", str(x.tag)), ("model.\(i).family", str(x.family)), ("model.\(i).parameter-size", str(x.parameterSize)),
                    ("model.\(i).quantization", str(x.quantization)), ("model.\(i).context-length", be(x.contextLength)),
                    ("model.\(i).capabilities", be(x.capabilities.rawValue))]
        }
    case .away(let a):
        out += [("host-key", hexString(a.hostKey.bytes)), ("sequence", be(a.advertSequence)), ("since-ms", be(a.sinceMs)),
                ("signature", hexString(a.signature.bytes)), ("signed-bytes", hexString(a.signedBytes()))]
    case .request(let r) where r.version >= 2:
        out += [("request-id", hexString(r.requestID.bytes)), ("version", be(r.version))]
        guard r.version == 2 else { break }  // a later layout: nothing else was read
        out += [("model", str(r.model)), ("conversation-id", hexString(r.conversationID.bytes)), ("prefix-hash", hexString(r.prefixHash.bytes)),
                ("inline", r.inline ? "01" : "00")] + (try richChat(r.messages))
        for (i, t) in r.tools.enumerated() {
            out += [("tool.\(i).name", str(t.name)), ("tool.\(i).description", str(t.description)), ("tool.\(i).parameters", str(t.parametersJSON))]
        }
        for (i, e) in try r.options.entries().enumerated() { out += [("option.\(i).key", be(e.key)), ("option.\(i).value", hexString(e.value))] }
    case .syncDelta(let d) where d.version == 2:
        out += [("conversation-id", hexString(d.conversationID.bytes)), ("base-prefix-hash", hexString(d.basePrefixHash.bytes)),
                ("resulting-prefix-hash", hexString(d.resultingPrefixHash.bytes))] + (try richChat(d.appended))
    case .request(let r):
        out += [("request-id", hexString(r.requestID.bytes)), ("model", str(r.model)), ("conversation-id", hexString(r.conversationID.bytes)),
                ("prefix-hash", hexString(r.prefixHash.bytes)), ("inline", r.inline ? "01" : "00"), ("max-tokens", be(r.maxTokens)),
                ("temperature", be(r.temperaturePerMille))] + chat(r.messages)
        if let c = r.continuation { out.append(("continuation", str(c))) }
    case .accept(let id), .cancel(let id): out.append(("request-id", hexString(id.bytes)))
    case .rosterAsk(let v): out.append(("version", be(v)))
    case .grantTerms(let t): out += [("grant-id", hexString(t.grantID.bytes)), ("tools", t.tools ? "01" : "00")]
    case .embedRequest(let e):
        out += [("request-id", hexString(e.requestID.bytes)), ("model", str(e.model))]
            + e.inputs.enumerated().map { ("input.\($0.offset)", str($0.element)) }
    case .embedResult(let e):
        // Each vector as its IEEE-754 binary32 values, big-endian, concatenated.
        out += [("request-id", hexString(e.requestID.bytes)), ("model", str(e.model)), ("prompt-tokens", be(e.promptTokens)),
                ("dimensions", be(UInt32(e.vectors.first?.count ?? 0)))]
            + e.vectors.enumerated().map { ("vector.\($0.offset)", $0.element.map { be($0.bitPattern) }.joined()) }
    case .manageRequest(let m):
        out += [("request-id", hexString(m.requestID.bytes)), ("action", be(m.action.rawValue)), ("model", str(m.model)), ("runtime", str(m.runtime))]
    case .manageProgress(let p):
        out += [("request-id", hexString(p.requestID.bytes)), ("completed", be(p.completed)), ("total", be(p.total)), ("status", str(p.status))]
    case .manageResult(let m):
        out += [("request-id", hexString(m.requestID.bytes)), ("text", str(m.text))]
        for (i, rt) in m.runtimes.enumerated() {
            out += [("runtime.\(i).url", str(rt.url)), ("runtime.\(i).kind", be(rt.kind)), ("runtime.\(i).abilities", be(rt.abilities))]
            for (j, x) in rt.models.enumerated() {
                out += [("runtime.\(i).model.\(j).name", str(x.name)), ("runtime.\(i).model.\(j).size", be(x.sizeBytes)),
                        ("runtime.\(i).model.\(j).flags", be(x.flags))]
            }
        }
    case .chunk(let id, let text): out += [("request-id", hexString(id.bytes)), ("text", str(text))]
    case .done(let d):
        out += [("request-id", hexString(d.requestID.bytes)), ("prompt-tokens", be(d.promptTokens)),
                ("completion-tokens", be(d.completionTokens)), ("finish-reason", str(d.finishReason))]
    case .error(let e): out += [("request-id", hexString(e.requestID.bytes)), ("code", be(e.code.rawValue)), ("message", str(e.message))]
    case .syncDelta(let d):
        out += [("conversation-id", hexString(d.conversationID.bytes)), ("base-prefix-hash", hexString(d.basePrefixHash.bytes)),
                ("resulting-prefix-hash", hexString(d.resultingPrefixHash.bytes))] + chat(d.appended)
    case .invite(let i):
        out += [("relay-url", str(i.relayURL)), ("host-signing-key", hexString(i.hostSigningKey.bytes)), ("host-hpke-key", hexString(i.hostHPKEKey.bytes)),
                ("invite-secret", hexString(i.inviteSecret.bytes)), ("rate", be(i.ratePerMinute)), ("expires-ms", be(i.expiresMs))] + tags(i.models)
        if let t = i.admissionToken { out.append(("token", hexString(t))) }
        out += i.alternates.enumerated().map { ("alternate.\($0.offset)", str($0.element)) }
    case .join(let j): out += [("secret-proof", hexString(j.secretProof.bytes)), ("device-record", hexString(j.deviceRecord)), ("account-name", str(j.accountName))]
    case .grant(let g): out += [("grant-id", hexString(g.grantID.bytes)), ("rate", be(g.ratePerMinute)), ("expires-ms", be(g.expiresMs))] + tags(g.models)
    case .revoke(let r): out += [("grant-id", hexString(r.grantID.bytes)), ("reason", str(r.reason))]
    case .modelChoice(let c):
        out += [("model-id", str(c.modelID)), ("vision", c.vision ? "01" : "00"), ("sequence", be(c.sequence)), ("origin-device", hexString(c.originDevice.bytes))]
    case .roster(let r):
        out += [("account-key", hexString(r.accountKey.bytes)), ("version", be(r.version)), ("signature", hexString(r.signature.bytes)),
                ("signed-bytes", hexString(try r.signedBytes()))] + r.deviceRecords.enumerated().map { ("device.\($0.offset)", hexString($0.element)) }
    case .pairRequest(let p): out += [("code-id", hexString(p.codeID.bytes)), ("proof", hexString(p.proof.bytes))]
    case .pairWelcome(let w):
        out += [("code-id", hexString(w.codeID.bytes)), ("roster", hexString(Array(try AppMessage.roster(w.roster).encode().dropFirst()))),
                ("proof", hexString(w.proof.bytes)), ("unproven-bytes", hexString(try w.unprovenBytes()))]
        if let p = w.relayProof { out.append(("relay-proof", hexString(try p.encode()))) }
        if let a = w.advert { out.append(("advert", hexString(Array(try AppMessage.advert(a).encode().dropFirst())))) }
    case .pairRefused(let r):
        out += [("code-id", hexString(r.codeID.bytes)), ("reason", be(r.reason.code)), ("tries-left", be(r.triesLeft)), ("text", str(r.text))]
    case .pairCodeRequest(let p): out += [("request-id", hexString(p.requestID.bytes)), ("valid-ms", be(p.validMs)), ("max-tries", be(p.maxTries))]
    case .pairCode(let c):
        out.append(("request-id", hexString(c.requestID.bytes)))
        switch c.result {
        case .issued(let code, let expiresMs, let maxTries):
            out += [("result", "00"), ("code", str(code)), ("expires-ms", be(expiresMs)), ("max-tries", be(maxTries))]
        case .refused(let why, let text): out += [("result", be(why.code)), ("text", str(text))]
        }
    case .pairCodeOutcome(let o):
        out += [("request-id", hexString(o.requestID.bytes)), ("code-id", hexString(o.codeID.bytes)), ("outcome", be(o.outcome.code)),
                ("wrong-tries", be(o.wrongTries)), ("device-record", hexString(o.deviceRecord))]
    case .part(let p):
        out += [("message-id", hexString(p.messageID.bytes)), ("index", be(p.index)), ("count", be(p.count)),
                ("total-length", be(p.totalLength)), ("bytes", hexString(p.bytes))]
    case .unknown: break
    }
    return out
}

@Sendable private func checkAppMessage(_ v: VectorFile) throws {
    try v.requireOnly(messageKeys)
    let message: AppMessage
    do { message = try AppMessage.decode(v.payload) } catch {
        guard failureName(error) == v.expect else { throw fail(v, "expected \(v.expect), got \(error)") }
        return
    }
    if case .unknown = message {
        guard v.expect == "skipped" else { throw fail(v, "expected \(v.expect), got a skipped unknown type") }
        try compare(v, try messageFields(message))
        return
    }
    guard v.expect == "success" else { throw fail(v, "expected \(v.expect), decoded \(message)") }
    try compare(v, try messageFields(message))
    guard try message.encode() == v.payload else { throw fail(v, "re-encoding differs from the payload") }
}

@Sendable private func checkParts(_ v: VectorFile) throws {
    try v.requireOnly(Set(["message-id", "max-part"]).union(indexed("part", [""])))
    let id = try v.hexField("message-id")
    var parts: [AppMessage.Part] = []
    while let raw = try v.optionalHexField("part.\(parts.count)") {
        guard case .part(let p) = try AppMessage.decode(raw) else { throw fail(v, "part.\(parts.count) is not a part") }
        guard p.messageID.bytes == id else { throw fail(v, "part.\(parts.count) has another message id") }
        parts.append(p)
    }
    if let maxHex = try v.optionalHexField("max-part") {
        let max = maxHex.reduce(0) { $0 << 8 | Int($1) }
        let split = try Splitter(maxPartPayload: max).split(v.payload, messageID: Bytes16(id)!)
        guard split == parts.sorted(by: { $0.index < $1.index }) else { throw fail(v, "splitting the payload gives other parts") }
    }
    var r = Reassembler(configuration: .init(timeoutMs: 10))
    var outcome = "missing"
    for p in parts {
        do {
            if let whole = try r.add(p, nowMs: 0) {
                guard whole == v.payload else { throw fail(v, "reassembled bytes differ from the payload") }
                _ = try AppMessage.decode(whole)
                outcome = "success"
            }
        } catch let e as WireError { outcome = failureName(e); break }
    }
    if outcome == "missing" && r.expire(nowMs: 11).isEmpty { throw fail(v, "incomplete message did not expire as missing") }
    guard outcome == v.expect else { throw fail(v, "expected \(v.expect), got \(outcome)") }
}

@Sendable private func checkAuthTranscript(_ v: VectorFile) throws {
    try v.requireOnly(["origin", "challenge", "device-key", "account-binding"])
    guard let origin = String(validating: try v.hexField("origin"), as: UTF8.self),
          let challenge = Bytes32(try v.hexField("challenge")), let key = Bytes32(try v.hexField("device-key")) else {
        throw fail(v, "bad origin, challenge or device key")
    }
    guard v.expect == "success", try RelayAuth.transcript(origin: origin, challenge: challenge, deviceKey: key) == v.payload else {
        throw fail(v, "transcript differs from the payload")
    }
    guard RelayAuth.accountBinding(deviceKey: key) == (try v.hexField("account-binding")) else {
        throw fail(v, "account binding differs")
    }
}

private func u64Field(_ v: VectorFile, _ k: String) throws -> UInt64 {
    try v.hexField(k).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
}

@Sendable private func checkDeviceProofBinding(_ v: VectorFile) throws {
    try v.requireOnly(["origin", "device-key", "roster-version", "not-after"])
    guard let origin = String(validating: try v.hexField("origin"), as: UTF8.self), let key = Bytes32(try v.hexField("device-key")) else {
        throw fail(v, "bad origin or device key")
    }
    let m = try RelayAuth.deviceProofBinding(origin: origin, deviceKey: key, rosterVersion: try u64Field(v, "roster-version"),
                                             notAfterSeconds: try u64Field(v, "not-after"))
    guard v.expect == "success", m == v.payload else { throw fail(v, "device-proof binding differs from the payload") }
}

@Sendable private func checkOrderBinding(_ v: VectorFile) throws {
    try v.requireOnly(["origin", "order-kind", "subject", "roster-version", "not-after", "uses"])
    guard let origin = String(validating: try v.hexField("origin"), as: UTF8.self), let subject = Bytes32(try v.hexField("subject")),
          let kind = try v.hexField("order-kind").first else { throw fail(v, "bad origin, kind or subject") }
    let m = try RelayAuth.orderBinding(origin: origin, kind: kind, subject: subject, rosterVersion: try u64Field(v, "roster-version"),
                                       notAfterSeconds: try u64Field(v, "not-after"), uses: UInt16(try u64Field(v, "uses")))
    guard v.expect == "success", m == v.payload else { throw fail(v, "account-order binding differs from the payload") }
}
