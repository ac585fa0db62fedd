// Generators for the Wire vectors (relay frames, application messages, parts, auth transcript).
// Kinds and fields are specified in protocol/spec-wire.md, "Test vectors". Fields are written
// here by hand from the input values (not derived from the decoder), so the checkers compare
// two independent descriptions of each encoding.
import Basics
import Wire

private func h8(_ v: UInt8) -> String { hexString([v]) }
private func h16(_ v: UInt16) -> String { hexString([UInt8(v >> 8), UInt8(v & 0xFF)]) }
private func h32(_ v: UInt32) -> String { hexString((0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) }) }
private func h64(_ v: UInt64) -> String { hexString((0..<8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * $0)) }) }
private func hs(_ s: String) -> String { hexString(Array(s.utf8)) }

private let deviceKey = Bytes32.repeating(0xD1), peerKey = Bytes32.repeating(0xE2), accountKey = Bytes32.repeating(0xA3)
private let sig = Bytes64.repeating(0x5A), frameID = Bytes16((0..<16).map { UInt8($0) })!
private let nonce = Bytes32((0..<32).map { UInt8(0x80 + $0) })!, hash1 = Bytes32.repeating(0x01), hash2 = Bytes32.repeating(0x02)

private func frame(_ name: String, _ comment: String, _ f: RelayFrame, _ fields: [(String, String)]) -> VectorCase {
    VectorCase(name: "frame-" + name, kind: "relay-frame", expect: "success", comment: comment,
               fields: [("type", h8(f.typeCode))] + fields, payload: try! f.encode())
}

private func idFrame(_ name: String, _ f: RelayFrame) -> VectorCase {
    frame(name, "\(name) for a frame id", f, [("frame-id", frameID.hex)])
}

private func frameCases() -> [VectorCase] {
    let sealed: [UInt8] = Array("sealed-bytes".utf8)
    var cases = [
        frame("challenge", "relay challenge, version 1", .challenge(.init(nonce: nonce, origin: "wss://relay.example:443")),
              [("version", "01"), ("nonce", nonce.hex), ("origin", hs("wss://relay.example:443"))]),
        frame("auth", "device key and signature only", .auth(.init(deviceKey: deviceKey, signature: sig)),
              [("device-key", deviceKey.hex), ("signature", sig.hex)]),
        frame("auth-account-token", "with an account proof and an admission token",
              .auth(.init(deviceKey: deviceKey, signature: sig, account: .init(accountKey: accountKey, signature: .repeating(0x6B)),
                          admissionToken: [0x74, 0x6F, 0x6B])),
              [("device-key", deviceKey.hex), ("signature", sig.hex), ("account-key", accountKey.hex),
               ("account-signature", Bytes64.repeating(0x6B).hex), ("token", "746f6b")]),
        frame("auth-ok", "authenticated", .authOK(.init(serverTimeMs: 1_700_000_000_000, mailboxCapacity: 1000, maxTTLSeconds: 604_800)),
              [("server-time-ms", h64(1_700_000_000_000)), ("mailbox-capacity", h32(1000)), ("max-ttl", h32(604_800))]),
        frame("auth-refused", "bad signature", .authRefused(.init(reason: .badSignature, text: "bad signature")),
              [("reason", "01"), ("text", hs("bad signature"))]),
        frame("send-live", "a live send: the collapse key is empty (none)", .send(.init(recipient: peerKey, deliveryClass: .live,
                                                                     frameID: frameID, ttlSeconds: 0, sealed: sealed)),
              [("recipient", peerKey.hex), ("class", "01"), ("frame-id", frameID.hex), ("ttl", h32(0)), ("collapse-key", ""),
               ("sealed", hexString(sealed))]),
        frame("send-mail-collapse", "a mail send with a collapse key",
              .send(.init(recipient: peerKey, deliveryClass: .mail, frameID: frameID, ttlSeconds: 86_400,
                          collapseKey: Array("advert".utf8), sealed: sealed)),
              [("recipient", peerKey.hex), ("class", "02"), ("frame-id", frameID.hex), ("ttl", h32(86_400)),
               ("collapse-key", hs("advert")), ("sealed", hexString(sealed))]),
        frame("receive", "a mail frame held for a day", .receive(.init(sender: deviceKey, deliveryClass: .mail, frameID: frameID,
                                                                         heldMs: 86_400_000, sealed: sealed)),
              [("sender", deviceKey.hex), ("class", "02"), ("frame-id", frameID.hex), ("held-ms", h64(86_400_000)), ("sealed", hexString(sealed))]),
        idFrame("ack", .ack(frameID: frameID)), idFrame("not-here", .notHere(frameID: frameID)),
        idFrame("stored", .stored(frameID: frameID)), idFrame("mailbox-full", .mailboxFull(frameID: frameID)),
        idFrame("dropped", .dropped(frameID: frameID)),
        frame("queue-empty", "the backlog is delivered", .queueEmpty, []),
        frame("ping", "opaque value", .ping(0x0102_0304_0506_0708), [("value", "0102030405060708")]),
        frame("pong", "echo of the ping", .pong(0x0102_0304_0506_0708), [("value", "0102030405060708")]),
        frame("error-replaced", "a newer connection took this key", .error(.init(code: .replaced, text: "replaced")),
              [("code", h16(6)), ("text", hs("replaced"))]),
        frame("restarting", "reconnect after 2.5 s", .restarting(reconnectAfterMs: 2500), [("reconnect-after-ms", h32(2500))]),
        frame("device-proof", "the account's proof for the device of the auth that follows",
              .deviceProof(.init(accountKey: accountKey, rosterVersion: 7, notAfterSeconds: 1_800_000_000, signature: .repeating(0x6B))),
              [("account-key", accountKey.hex), ("roster-version", h64(7)), ("not-after", h64(1_800_000_000)),
               ("account-signature", Bytes64.repeating(0x6B).hex)]),
        frame("account-order-revoke", "revoke a device removed at roster 8",
              .accountOrder(.init(accountKey: accountKey, kind: 1, subject: peerKey, rosterVersion: 8, notAfterSeconds: 1_800_000_000,
                                  signature: .repeating(0x6B))),
              [("account-key", accountKey.hex), ("order-kind", "01"), ("subject", peerKey.hex), ("roster-version", h64(8)),
               ("not-after", h64(1_800_000_000)), ("uses", h16(0)), ("account-signature", Bytes64.repeating(0x6B).hex)]),
        frame("account-order-token", "admit a single-use token (by its SHA-256)",
              .accountOrder(.init(accountKey: accountKey, kind: 2, subject: hash1, notAfterSeconds: 1_800_000_000, uses: 1,
                                  signature: .repeating(0x6B))),
              [("account-key", accountKey.hex), ("order-kind", "02"), ("subject", hash1.hex), ("roster-version", h64(0)),
               ("not-after", h64(1_800_000_000)), ("uses", h16(1)), ("account-signature", Bytes64.repeating(0x6B).hex)]),
    ]
    var flagged = try! RelayFrame.ping(7).encode()
    flagged[1] = 0xA5
    cases.append(VectorCase(name: "frame-reserved-flags", kind: "relay-frame", expect: "success",
                            comment: "reserved flag bits set: ignored", fields: [("type", "20"), ("value", h64(7))], payload: flagged))
    cases.append(VectorCase(name: "frame-unknown-type", kind: "relay-frame", expect: "skipped",
                            comment: "type 0x7e is unknown: skipped, not an error", fields: [("type", "7e")],
                            payload: [0x7E, 0, 0, 0, 0, 3, 1, 2, 3]))
    let ack = try! RelayFrame.ack(frameID: frameID).encode()
    cases.append(VectorCase(name: "frame-truncated", kind: "relay-frame", expect: "truncated",
                            comment: "an ack one byte short of its length", payload: Array(ack.dropLast())))
    cases.append(VectorCase(name: "frame-trailing", kind: "relay-frame", expect: "trailing bytes",
                            comment: "an ack body of 17 bytes", payload: [0x12, 0, 0, 0, 0, 17] + frameID.bytes + [0]))
    cases.append(VectorCase(name: "frame-oversize", kind: "relay-frame", expect: "oversize",
                            comment: "length 65793 > 65792: rejected from the header alone", payload: [0x10, 0, 0, 1, 1, 1]))
    var badClass = try! RelayFrame.send(.init(recipient: peerKey, deliveryClass: .live, frameID: frameID, ttlSeconds: 0, sealed: sealed)).encode()
    badClass[6 + 32] = 3
    cases.append(VectorCase(name: "frame-bad-class", kind: "relay-frame", expect: "bad class",
                            comment: "class 3 is neither live nor mail", payload: badClass))
    var liveCollapse = try! RelayFrame.send(.init(recipient: peerKey, deliveryClass: .mail, frameID: frameID, ttlSeconds: 0,
                                                  collapseKey: [1], sealed: sealed)).encode()
    liveCollapse[6 + 32] = 1
    cases.append(VectorCase(name: "frame-collapse-on-live", kind: "relay-frame", expect: "collapse key on live",
                            comment: "a live send with a collapse key", payload: liveCollapse))
    let origin = "wss://relay.example:443"
    cases.append(VectorCase(name: "frame-auth-transcript", kind: "auth-transcript", expect: "success",
                            comment: "payload = the bytes the device signs",
                            fields: [("origin", hs(origin)), ("challenge", nonce.hex), ("device-key", deviceKey.hex),
                                     ("account-binding", hs("homebase-account-device-v1") + "00" + deviceKey.hex)],
                            payload: Array("homebase-relay-auth-v1".utf8) + [0, 0, UInt8(origin.utf8.count)] + Array(origin.utf8)
                                + nonce.bytes + deviceKey.bytes))
    let o = Array(origin.utf8), oLen: [UInt8] = [0, UInt8(o.count)]
    cases.append(VectorCase(name: "frame-device-proof-binding", kind: "device-proof-binding", expect: "success",
                            comment: "payload = the bytes the account key signs for device-proof",
                            fields: [("origin", hs(origin)), ("device-key", deviceKey.hex), ("roster-version", h64(7)),
                                     ("not-after", h64(1_800_000_000))],
                            payload: Array("homebase-device-proof-v1".utf8) + [0] + oLen + o + deviceKey.bytes
                                + [0, 0, 0, 0, 0, 0, 0, 7] + [0, 0, 0, 0, 0x6B, 0x49, 0xD2, 0x00]))
    cases.append(VectorCase(name: "frame-account-order-binding", kind: "account-order-binding", expect: "success",
                            comment: "payload = the bytes the account key signs for account-order (admit a token)",
                            fields: [("origin", hs(origin)), ("order-kind", "02"), ("subject", hash1.hex), ("roster-version", h64(0)),
                                     ("not-after", h64(1_800_000_000)), ("uses", h16(1))],
                            payload: Array("homebase-account-order-v1".utf8) + [0] + oLen + o + [2] + hash1.bytes
                                + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0x6B, 0x49, 0xD2, 0x00] + [0, 1]))
    return cases
}

private func msg(_ name: String, _ comment: String, _ m: AppMessage, _ fields: [(String, String)]) -> VectorCase {
    VectorCase(name: "msg-" + name, kind: "app-message", expect: "success", comment: comment,
               fields: [("type", h8(m.typeCode))] + fields, payload: try! m.encode())
}

private func chatFields(_ list: [AppMessage.ChatMessage]) -> [(String, String)] {
    list.enumerated().flatMap { i, m in [("message.\(i).role", h8(m.role.rawValue)), ("message.\(i).content", hs(m.content))] }
}

private func messageCases() -> [VectorCase] {
    let rid = Bytes16.repeating(0x71), cid = Bytes16.repeating(0xC0), gid = Bytes16.repeating(0x67)
    let chat: [AppMessage.ChatMessage] = [.init(role: .system, content: "Be brief."), .init(role: .user, content: "Grüß dich")]
    let model = AppMessage.ModelInfo(tag: "llama3.1:8b", family: "llama", parameterSize: "8.0B", quantization: "Q4_K_M",
                                     contextLength: 131_072, capabilities: [.tools, .completion])
    let advert = AppMessage.Advert(hostKey: deviceKey, sequence: 42, timestampMs: 1_700_000_000_000, models: [model], signature: sig)
    let advertUnsigned = deviceKey.hex + h64(42) + h64(1_700_000_000_000) + h16(1) + h16(11) + hs("llama3.1:8b") + h16(5) + hs("llama")
        + h16(4) + hs("8.0B") + h16(6) + hs("Q4_K_M") + h32(131_072) + "05"
    let roster = AppMessage.Roster(accountKey: accountKey, version: 3, deviceRecords: [[0xDE, 0xAD], [0xBE]], signature: sig)
    let rosterBody = accountKey.hex + h64(3) + h16(2) + h32(2) + "dead" + h32(1) + "be" + sig.hex
    let codeID = Bytes8((0..<8).map { UInt8(0xC0 + $0) })!
    var cases = [
        msg("advert", "one model, tools and completion", .advert(advert),
            [("host-key", deviceKey.hex), ("sequence", h64(42)), ("timestamp-ms", h64(1_700_000_000_000)),
             ("model.0.tag", hs("llama3.1:8b")), ("model.0.family", hs("llama")), ("model.0.parameter-size", hs("8.0B")),
             ("model.0.quantization", hs("Q4_K_M")), ("model.0.context-length", h32(131_072)), ("model.0.capabilities", "05"),
             ("signature", sig.hex), ("signed-bytes", hs("homebase-advert-v1") + "00" + advertUnsigned)]),
        msg("away", "a host going to sleep: its advert 44 lists no models",
            .away(.init(hostKey: deviceKey, advertSequence: 44, sinceMs: 1_700_000_600_000, signature: sig)),
            [("host-key", deviceKey.hex), ("sequence", h64(44)), ("since-ms", h64(1_700_000_600_000)), ("signature", sig.hex),
             ("signed-bytes", hs("homebase-away-v1") + "00" + deviceKey.hex + h64(44) + h64(1_700_000_600_000))]),
        msg("advert-capabilities", "a vision model and an embedding-only model (capability bit 3)",
            .advert(.init(hostKey: deviceKey, sequence: 43, timestampMs: 1_700_000_000_000, models: [
                .init(tag: "llava:7b", family: "llama", parameterSize: "7B", quantization: "Q4_0", contextLength: 4096,
                      capabilities: [.vision, .completion]),
                .init(tag: "nomic-embed-text", family: "nomic-bert", parameterSize: "137M", quantization: "F16",
                      contextLength: 2048, capabilities: [.embedding])], signature: sig)),
            [("host-key", deviceKey.hex), ("sequence", h64(43)), ("timestamp-ms", h64(1_700_000_000_000)),
             ("model.0.tag", hs("llava:7b")), ("model.0.family", hs("llama")), ("model.0.parameter-size", hs("7B")),
             ("model.0.quantization", hs("Q4_0")), ("model.0.context-length", h32(4096)), ("model.0.capabilities", "06"),
             ("model.1.tag", hs("nomic-embed-text")), ("model.1.family", hs("nomic-bert")), ("model.1.parameter-size", hs("137M")),
             ("model.1.quantization", hs("F16")), ("model.1.context-length", h32(2048)), ("model.1.capabilities", "08"),
             ("signature", sig.hex), ("signed-bytes", hs("homebase-advert-v1") + "00" + deviceKey.hex + h64(43)
                + h64(1_700_000_000_000) + h16(2) + h16(8) + hs("llava:7b") + h16(5) + hs("llama") + h16(2) + hs("7B")
                + h16(4) + hs("Q4_0") + h32(4096) + "06" + h16(16) + hs("nomic-embed-text") + h16(10) + hs("nomic-bert")
                + h16(4) + hs("137M") + h16(3) + hs("F16") + h32(2048) + "08")]),
        msg("request", "inline conversation, temperature 0.7",
            .request(.init(requestID: rid, model: "llama3.1:8b", conversationID: cid, prefixHash: .zero, messages: chat,
                           inline: true, maxTokens: 512, temperaturePerMille: 700)),
            [("request-id", rid.hex), ("model", hs("llama3.1:8b")), ("conversation-id", cid.hex), ("prefix-hash", Bytes32.zero.hex)]
            + chatFields(chat) + [("inline", "01"), ("max-tokens", h32(512)), ("temperature", h16(700))]),
        msg("request-continuation", "extends a prefix and continues a partial answer",
            .request(.init(requestID: rid, model: "m", conversationID: cid, prefixHash: hash1, messages: [chat[1]],
                           inline: false, maxTokens: 64, temperaturePerMille: 0, continuation: "Hallo, ")),
            [("request-id", rid.hex), ("model", hs("m")), ("conversation-id", cid.hex), ("prefix-hash", hash1.hex)]
            + chatFields([chat[1]]) + [("inline", "00"), ("max-tokens", h32(64)), ("temperature", h16(0)), ("continuation", hs("Hallo, "))]),
        msg("accept", "request taken", .accept(requestID: rid), [("request-id", rid.hex)]),
        msg("chunk", "streamed text", .chunk(requestID: rid, text: "Hallo!"), [("request-id", rid.hex), ("text", hs("Hallo!"))]),
        msg("done", "finished", .done(.init(requestID: rid, promptTokens: 21, completionTokens: 3, finishReason: "stop")),
            [("request-id", rid.hex), ("prompt-tokens", h32(21)), ("completion-tokens", h32(3)), ("finish-reason", hs("stop"))]),
        msg("error", "cache miss", .error(.init(requestID: rid, code: .cacheMiss, message: "no cached prefix")),
            [("request-id", rid.hex), ("code", "05"), ("message", hs("no cached prefix"))]),
        msg("cancel", "no longer wanted", .cancel(requestID: rid), [("request-id", rid.hex)]),
        msg("sync-delta", "two messages appended",
            .syncDelta(.init(conversationID: cid, basePrefixHash: hash1, appended: chat, resultingPrefixHash: hash2)),
            [("conversation-id", cid.hex), ("base-prefix-hash", hash1.hex)] + chatFields(chat) + [("resulting-prefix-hash", hash2.hex)]),
        msg("invite", "with an admission token",
            .invite(.init(relayURL: "wss://relay.example:443", hostSigningKey: deviceKey, hostHPKEKey: peerKey,
                          inviteSecret: .repeating(0x5E), models: ["llama3.1:8b"], ratePerMinute: 30,
                          expiresMs: 1_800_000_000_000, admissionToken: [0xAD])),
            [("relay-url", hs("wss://relay.example:443")), ("host-signing-key", deviceKey.hex), ("host-hpke-key", peerKey.hex),
             ("invite-secret", Secret32.repeating(0x5E).hex), ("model.0", hs("llama3.1:8b")), ("rate", h32(30)),
             ("expires-ms", h64(1_800_000_000_000)), ("token", "ad")]),
        msg("invite-alternates", "naming two other nodes of the relay's cluster, no token",
            .invite(.init(relayURL: "wss://relay.example:443", hostSigningKey: deviceKey, hostHPKEKey: peerKey,
                          inviteSecret: .repeating(0x5E), models: ["llama3.1:8b"], ratePerMinute: 30,
                          expiresMs: 1_800_000_000_000, alternates: ["wss://node2.relay.example", "wss://node3.relay.example"])),
            [("relay-url", hs("wss://relay.example:443")), ("host-signing-key", deviceKey.hex), ("host-hpke-key", peerKey.hex),
             ("invite-secret", Secret32.repeating(0x5E).hex), ("model.0", hs("llama3.1:8b")), ("rate", h32(30)),
             ("expires-ms", h64(1_800_000_000_000)), ("alternate.0", hs("wss://node2.relay.example")),
             ("alternate.1", hs("wss://node3.relay.example"))]),
        msg("join", "a guest joins", .join(.init(secretProof: hash1, deviceRecord: [0xDE, 0xAD], accountName: "ana")),
            [("secret-proof", hash1.hex), ("device-record", "dead"), ("account-name", hs("ana"))]),
        msg("grant", "two models", .grant(.init(grantID: gid, models: ["a", "b"], ratePerMinute: 10, expiresMs: 99)),
            [("grant-id", gid.hex), ("model.0", hs("a")), ("model.1", hs("b")), ("rate", h32(10)), ("expires-ms", h64(99))]),
        msg("grant-terms", "the grant allows tools", .grantTerms(.init(grantID: gid, tools: true)),
            [("grant-id", gid.hex), ("tools", "01")]),
        msg("revoke", "grant withdrawn", .revoke(.init(grantID: gid, reason: "bye")), [("grant-id", gid.hex), ("reason", hs("bye"))]),
        msg("model-choice", "vision model chosen",
            .modelChoice(.init(modelID: "llava:7b", vision: true, sequence: 9, originDevice: deviceKey)),
            [("model-id", hs("llava:7b")), ("vision", "01"), ("sequence", h64(9)), ("origin-device", deviceKey.hex)]),
        msg("roster", "two device records", .roster(roster),
            [("account-key", accountKey.hex), ("version", h64(3)), ("device.0", "dead"), ("device.1", "be"), ("signature", sig.hex),
             ("signed-bytes", hs("homebase-roster-v1") + "00" + accountKey.hex + h64(3) + h16(2) + h32(2) + "dead" + h32(1) + "be")]),
        msg("roster-ask", "a device holding roster 3 asks for a newer one", .rosterAsk(version: 3), [("version", h64(3))]),
        msg("pair-request", "a new device asks with a code", .pairRequest(.init(codeID: codeID, proof: hash1)),
            [("code-id", codeID.hex), ("proof", hash1.hex)]),
        msg("pair-welcome", "the roster and the Homebase's advert", .pairWelcome(.init(codeID: codeID, roster: roster, advert: advert, proof: hash2)),
            [("code-id", codeID.hex), ("roster", rosterBody), ("advert", advertUnsigned + sig.hex), ("proof", hash2.hex),
             ("unproven-bytes", codeID.hex + rosterBody + "01" + advertUnsigned + sig.hex)]),
        msg("pair-welcome-relay-proof", "with the account's proof for the new device at the relay (after the proof)",
            .pairWelcome(.init(codeID: codeID, roster: roster, proof: hash2,
                               relayProof: .init(origin: "wss://relay.example:443", rosterVersion: 3, notAfterSeconds: 1_800_000_000,
                                                 signature: .repeating(0x6B)))),
            [("code-id", codeID.hex), ("roster", rosterBody), ("proof", hash2.hex), ("unproven-bytes", codeID.hex + rosterBody + "00"),
             ("relay-proof", h16(23) + hs("wss://relay.example:443") + h64(3) + h64(1_800_000_000) + Bytes64.repeating(0x6B).hex)]),
        msg("pair-welcome-no-advert", "a Homebase with nothing to advertise", .pairWelcome(.init(codeID: codeID, roster: roster, proof: hash2)),
            [("code-id", codeID.hex), ("roster", rosterBody), ("proof", hash2.hex), ("unproven-bytes", codeID.hex + rosterBody + "00")]),
        msg("pair-refused", "a wrong code, two tries left", .pairRefused(.init(codeID: codeID, reason: .wrongSecret, triesLeft: 2, text: "wrong code")),
            [("code-id", codeID.hex), ("reason", "04"), ("tries-left", "02"), ("text", hs("wrong code"))]),
        msg("pair-code-request", "a sibling asks for a code: 10 minutes, 3 tries", .pairCodeRequest(.init(requestID: rid, validMs: 600_000, maxTries: 3)),
            [("request-id", rid.hex), ("valid-ms", h32(600_000)), ("max-tries", "03")]),
        msg("pair-code-issued", "the code as text (the wire does not parse it)",
            .pairCode(.init(requestID: rid, result: .issued(code: "hbpair1-example", expiresMs: 99, maxTries: 3))),
            [("request-id", rid.hex), ("result", "00"), ("code", hs("hbpair1-example")), ("expires-ms", h64(99)), ("max-tries", "03")]),
        msg("pair-code-refused", "a grantee asked: not in the account",
            .pairCode(.init(requestID: rid, result: .refused(.notInAccount, text: "not a device of this account"))),
            [("request-id", rid.hex), ("result", "01"), ("text", hs("not a device of this account"))]),
        msg("pair-code-outcome-used", "the code was used: the joiner's record (opaque here)",
            .pairCodeOutcome(.init(requestID: rid, codeID: codeID, outcome: .used, wrongTries: 1, deviceRecord: [0xDE, 0xAD])),
            [("request-id", rid.hex), ("code-id", codeID.hex), ("outcome", "01"), ("wrong-tries", "01"), ("device-record", "dead")]),
        msg("pair-code-outcome-burnt", "the code was burnt by 3 wrong tries",
            .pairCodeOutcome(.init(requestID: rid, codeID: codeID, outcome: .burnt, wrongTries: 3)),
            [("request-id", rid.hex), ("code-id", codeID.hex), ("outcome", "02"), ("wrong-tries", "03"), ("device-record", "")]),
        msg("part", "second of three parts", .part(.init(messageID: cid, index: 1, count: 3, totalLength: 9, bytes: [4, 5, 6])),
            [("message-id", cid.hex), ("index", h16(1)), ("count", h16(3)), ("total-length", h32(9)), ("bytes", "040506")]),
    ]
    cases.append(VectorCase(name: "msg-unknown-type", kind: "app-message", expect: "skipped",
                            comment: "type 0x7f is unknown: skipped", fields: [("type", "7f")], payload: [0x7F, 1, 2]))
    cases.append(VectorCase(name: "msg-padding", kind: "app-message", expect: "skipped",
                            comment: "padding (0x60, request shaping): skipped as an unknown type, whatever follows",
                            fields: [("type", "60")], payload: [0x60, 0, 0, 0]))
    let done = try! AppMessage.done(.init(requestID: rid, promptTokens: 1, completionTokens: 2, finishReason: "stop")).encode()
    cases.append(VectorCase(name: "msg-truncated", kind: "app-message", expect: "truncated",
                            comment: "a done cut inside its finish reason", payload: Array(done.dropLast())))
    cases.append(VectorCase(name: "msg-bad-utf8", kind: "app-message", expect: "invalid utf-8",
                            comment: "chunk text 0xff", payload: [0x12] + rid.bytes + [0, 0, 0, 1, 0xFF]))
    cases.append(VectorCase(name: "msg-bad-role", kind: "app-message", expect: "invalid value",
                            comment: "role 9", payload: [0x20] + cid.bytes + hash1.bytes + [0, 1, 9, 0, 0, 0, 0] + hash2.bytes))
    return cases
}

private func partCases() -> [VectorCase] {
    let mid = Bytes16.repeating(0x3D)
    let message = try! AppMessage.chunk(requestID: .repeating(0x71), text: "a message split into parts").encode()
    let parts = try! Splitter(maxPartPayload: 16).split(message, messageID: mid).map { try! AppMessage.part($0).encode() }
    func set(_ name: String, _ expect: String, _ comment: String, _ order: [Int], maxPart: Bool = false) -> VectorCase {
        VectorCase(name: "parts-" + name, kind: "parts", expect: expect, comment: comment,
                   fields: [("message-id", mid.hex)] + (maxPart ? [("max-part", h32(16))] : [])
                       + order.enumerated().map { ("part.\($0.offset)", hexString(parts[$0.element])) },
                   payload: message)
    }
    return [
        set("split", "success", "a 47-byte chunk message in parts of 16 bytes, in order", [0, 1, 2], maxPart: true),
        set("shuffled", "success", "delivered out of order", [2, 0, 1]),
        set("missing", "missing", "part 1 never arrives", [2, 0]),
        set("duplicate", "duplicate", "part 0 arrives twice", [0, 0, 1, 2]),
    ]
}

func wireVectorCases() -> [VectorCase] {
    frameCases() + messageCases() + partCases()
}
