// Sample values of every frame and message, and a seeded random generator for the
// shuffle, split and fuzz tests (deterministic: a failure reproduces).
@testable import Wire

@_exported import TestKit  // SplitMix64, for every file of this target

enum Sample {
    static let key = Bytes32.repeating(0x11), key2 = Bytes32.repeating(0x22)
    static let sig = Bytes64.repeating(0x33), id = Bytes16.repeating(0x44)
    static let hash = Bytes32.repeating(0x55), hash2 = Bytes32.repeating(0x66)

    static let frames: [RelayFrame] = [
        .challenge(.init(nonce: hash, origin: "wss://relay.example:443")),
        .auth(.init(deviceKey: key, signature: sig)),
        .auth(.init(deviceKey: key, signature: sig, account: .init(accountKey: key2, signature: sig),
                    admissionToken: [1, 2, 3])),
        .auth(.init(deviceKey: key, signature: sig, admissionToken: [9])),
        .authOK(.init(serverTimeMs: 1_700_000_000_000, mailboxCapacity: 500, maxTTLSeconds: 604_800)),
        .authRefused(.init(reason: .badSignature, text: "signature does not verify")),
        .send(.init(recipient: key2, deliveryClass: .live, frameID: id, ttlSeconds: 0, sealed: [0xAA, 0xBB])),
        .send(.init(recipient: key2, deliveryClass: .mail, frameID: id, ttlSeconds: 86_400,
                    collapseKey: Array("advert".utf8), sealed: [UInt8](repeating: 0xCC, count: 300))),
        .send(.init(recipient: key2, deliveryClass: .mail, frameID: id, ttlSeconds: 60,
                    collapseKey: [UInt8](repeating: 7, count: 64), sealed: [UInt8](repeating: 1, count: Limits.maxSealed))),
        .receive(.init(sender: key, deliveryClass: .mail, frameID: id, heldMs: 86_399_000, sealed: [1, 2, 3, 4])),
        .receive(.init(sender: key, deliveryClass: .live, frameID: id, heldMs: 0, sealed: [])),
        .ack(frameID: id), .notHere(frameID: id), .stored(frameID: id), .mailboxFull(frameID: id),
        .dropped(frameID: id), .queueEmpty, .ping(0x0102_0304_0506_0708), .pong(.max),
        .error(.init(code: .replaced, text: "a newer connection for this key")),
        .error(.init(code: RelayErrorCode(rawValue: 999), text: "")),
        .restarting(reconnectAfterMs: 2_500),
        .peerGone(.init(peer: key2, reason: .closed)), .peerGone(.init(peer: key, reason: PeerGoneReason(rawValue: 200))),
    ]

    static let models: [AppMessage.ModelInfo] = [
        .init(tag: "llama3.1:8b", family: "llama", parameterSize: "8.0B", quantization: "Q4_K_M",
              contextLength: 131_072, capabilities: [.tools, .completion]),
        .init(tag: "llava:7b", family: "llava", parameterSize: "7B", quantization: "Q4_0",
              contextLength: 4096, capabilities: [.vision, AppMessage.Capabilities(rawValue: 0x80)]),
    ]

    static let chat: [AppMessage.ChatMessage] = [
        .init(role: .system, content: "Be brief."), .init(role: .user, content: "Grüß dich 👋"),
        .init(role: .assistant, content: ""), .init(role: .tool, content: "{\"ok\":true}"),
    ]

    /// Version 2 messages: parts with an image, a tool call and its result.
    static let richChat: [AppMessage.ChatMessage] = [
        .init(role: .user, parts: [.text("What is this?"), .image(mediaType: "image/png", bytes: [0x89, 0x50, 0x4E, 0x47])]),
        .init(role: .assistant, parts: [], toolCalls: [.init(id: "call_1", name: "look", argumentsJSON: "{\"x\":1}")]),
        .init(role: .tool, parts: [.text("a cat")], toolCallID: "call_1"),
    ]

    static var richRequest: AppMessage.Request {
        var o = AppMessage.RequestOptions()
        o.maxTokens = 64; o.temperature = 0.25; o.continuation = "It is"; o.toolChoice = .function("look")
        var g = AppMessage.GenerationOptions()
        g.topP = 0.9; g.topK = 40; g.minP = 0.05; g.seed = -1
        g.presencePenalty = 0.1; g.frequencyPenalty = 0.2; g.repeatPenalty = 1.1; g.contextLength = 8192
        g.logprobs = true; g.topLogprobs = 3; g.stop = ["\n\n", "END"]
        g.responseFormat = .jsonSchema(name: "answer", schemaJSON: "{\"type\":\"object\"}", strict: true)
        g.extra = ["mirostat": "2", "typical_p": "0.5"]
        o.generation = g
        return AppMessage.Request(requestID: id, model: "llava:7b", conversationID: id, prefixHash: hash, messages: richChat,
                                  inline: false, tools: [.init(name: "look", description: "Looks.", parametersJSON: "{}")],
                                  options: o)
    }

    static let messages: [AppMessage] = [
        .advert(.init(hostKey: key, sequence: 7, timestampMs: 1_700_000_000_123, models: models, signature: sig)),
        .advert(.init(hostKey: key, sequence: 8, timestampMs: 0, models: [], signature: sig)),
        .request(.init(requestID: id, model: "llama3.1:8b", conversationID: Bytes16.repeating(0x77), prefixHash: .zero,
                       messages: chat, inline: true, maxTokens: 1024, temperaturePerMille: 700)),
        .request(.init(requestID: id, model: "m", conversationID: id, prefixHash: hash, messages: [], inline: false,
                       maxTokens: 0, temperaturePerMille: 0, continuation: "The answer is")),
        .request(richRequest),
        .syncDelta(.init(conversationID: id, basePrefixHash: hash, appended: richChat, resultingPrefixHash: hash2)),
        .accept(requestID: id), .chunk(requestID: id, text: "Hello, "), .chunk(requestID: id, text: ""),
        .done(.init(requestID: id, promptTokens: 12, completionTokens: 34, finishReason: "stop")),
        .error(.init(requestID: id, code: .diverged, message: "prefix not held")),
        .error(.init(requestID: id, code: AppMessage.ErrorCode(rawValue: 200), message: "")),
        .cancel(requestID: id),
        .syncDelta(.init(conversationID: id, basePrefixHash: hash, appended: chat, resultingPrefixHash: hash2)),
        .invite(.init(relayURL: "wss://relay.example:443", hostSigningKey: key, hostHPKEKey: key2,
                      inviteSecret: .repeating(0x99), models: ["llama3.1:8b", "llava:7b"], ratePerMinute: 30,
                      expiresMs: 1_800_000_000_000, admissionToken: [5, 6, 7])),
        .invite(.init(relayURL: "", hostSigningKey: key, hostHPKEKey: key2, inviteSecret: .zero, models: [],
                      ratePerMinute: 0, expiresMs: 0)),
        .join(.init(secretProof: hash, deviceRecord: [1, 2, 3, 4, 5], accountName: "ana")),
        .grant(.init(grantID: id, models: ["llama3.1:8b"], ratePerMinute: 60, expiresMs: 1_900_000_000_000)),
        .grantTerms(.init(grantID: id, tools: true)),
        .grantTerms(.init(grantID: id, tools: false)),
        .revoke(.init(grantID: id, reason: "done sharing")),
        .modelChoice(.init(modelID: "llava:7b", vision: true, sequence: 3, originDevice: key)),
        .roster(.init(accountKey: key2, version: 4, deviceRecords: [[1], [], [2, 3]], signature: sig)),
        .part(.init(messageID: id, index: 1, count: 3, totalLength: 10, bytes: [1, 2, 3])),
        .part(.init(messageID: id, index: 0, count: 1, totalLength: 0, bytes: [])),
        .pairWelcome(.init(codeID: Bytes8.repeating(0x88), roster: .init(accountKey: key2, version: 4, deviceRecords: [[1]], signature: sig),
                           proof: hash, relayProof: .init(origin: "wss://relay.example:443", rosterVersion: 4,
                                                          notAfterSeconds: 1_800_000_000, signature: sig))),
    ]

    /// Messages whose last field runs to the end: a prefix cut inside it is still a valid message.
    static func endsWithRest(_ m: AppMessage) -> Bool {
        if case .part = m { return true }
        return false
    }
}
