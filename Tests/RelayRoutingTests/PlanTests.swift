import Inference
import InferenceWire
@testable import RelayRouting
import Routing
import Sealing
import Signing
import Testing
import Wire

@Suite("what a request sends of its conversation")
struct PlanTests {
    let messages = chat("hi", "hello", "more", "sure", "go on").map(WireBridge.wire)

    @Test func hashesFoldTheSpecsConversationHash() {
        let plan = ConversationPlan(messages: messages)
        #expect(plan.hashes.count == 6 && plan.hashes[0] == .zero)
        let three = ConversationHash.of(messages.prefix(3).map { (role: $0.role.rawValue, content: $0.content) })
        #expect(plan.hashes[3].bytes == three)
        #expect(plan.fullHash == plan.hashes[5])
    }

    @Test func aHeldPrefixSendsOnlyWhatFollowsIt() {
        var plan = ConversationPlan(messages: messages)
        plan.assume(held: plan.hashes[3])
        #expect(!plan.inline && plan.prefixHash == plan.hashes[3])
        #expect(plan.newMessages.map(\.content) == ["sure", "go on"])
        let delta = plan.reconcilingDelta()
        #expect(delta == AppMessage.SyncDelta(conversationID: plan.conversationID, basePrefixHash: .zero,
                                              appended: Array(messages[..<3]), resultingPrefixHash: plan.hashes[3]))
        plan.inlineAll()
        #expect(plan.inline && plan.prefixHash == .zero && plan.newMessages == messages && plan.reconcilingDelta() == nil)
    }

    @Test func nothingKnownAnUnknownPrefixOrTheWholeConversationInlines() {
        var plan = ConversationPlan(messages: messages)
        for held in [nil, Bytes32.repeating(7), plan.hashes[5], plan.hashes[0]] {
            plan.assume(held: held)
            #expect(plan.inline && plan.newMessages == messages, "held \(String(describing: held))")
        }
    }

    @Test func theConversationIDSurvivesNewTurnsAndTellsOpeningsApart() {
        let a = ConversationPlan(messages: messages).conversationID
        let later = ConversationPlan(messages: messages + [.init(role: .assistant, content: "ok")]).conversationID
        let withSystem = ConversationPlan(messages: [.init(role: .system, content: "be brief")] + messages).conversationID
        let other = ConversationPlan(messages: [.init(role: .user, content: "bonjour")] + messages.dropFirst()).conversationID
        #expect(a == later && a != withSystem && a != other)
        // Never the head of a prefix hash (role 0 is no real role).
        #expect(a.bytes != Array(ConversationPlan(messages: messages).hashes[1].bytes.prefix(16)))
    }

    @Test func optionsAreAbsentUnlessTheCallerSetThem() throws {
        func options(maxTokens: Int?, temperature: Double?) throws -> AppMessage.RequestOptions {
            let r = ChatRequest(model: "m", messages: chat("hi"), maxTokens: maxTokens, temperature: temperature)
            return try WireBridge.request(r, requestID: .zero, conversationID: .zero, prefixHash: .zero,
                                          messages: r.messages.map(WireBridge.wire), inline: true).options
        }
        // No temperature is sent as none: the engine's default applies, never 0.7 of ours.
        #expect(try options(maxTokens: nil, temperature: nil) == AppMessage.RequestOptions())
        #expect(try options(maxTokens: -5, temperature: nil).maxTokens == nil)
        #expect(try options(maxTokens: 4096, temperature: 0.25) .maxTokens == 4096)
        #expect(try options(maxTokens: Int.max, temperature: 0.25).maxTokens == UInt32.max)
        #expect(try options(maxTokens: nil, temperature: 0.25).temperature == 0.25)
    }

    @Test func errorCodesReadAsTheSpecNamesThem() {
        let names = (1...11).map { AppMessage.ErrorCode(rawValue: $0).name }
        // 11 is no code yet: an unknown one reads as host_error.
        #expect(names == ["model_unavailable", "host_error", "busy", "diverged", "cache_miss", "revoked", "bad_request",
                          "too_large", "unsupported", "not_owner", "host_error"])
        // The host's code travels as a case; these are its words at display.
        #expect(BrainFailure.host(.modelUnavailable, message: "no such tag").description == "model unavailable: no such tag")
        #expect(BrainFailure.host(.notOwner, message: "a grantee").description == "remote error not_owner: a grantee")
    }
}

@Suite("the conversation ledger")
struct LedgerTests {
    @Test func recordsPerHostAndConversationAndForgetsTheOldestBeyondCapacity() throws {
        let ledger = InMemoryConversationLedger(capacity: 2)
        let h1 = try identity("one").record.signingKey, h2 = try identity("two").record.signingKey
        let c = Bytes16.repeating(1)
        ledger.record(host: h1, conversation: c, prefix: .repeating(1))
        ledger.record(host: h2, conversation: c, prefix: .repeating(2))
        #expect(ledger.heldPrefix(host: h1, conversation: c) == .repeating(1))
        #expect(ledger.heldPrefix(host: h2, conversation: c) == .repeating(2))
        #expect(ledger.heldPrefix(host: h1, conversation: .repeating(9)) == nil)
        ledger.record(host: h1, conversation: c, prefix: .repeating(3))  // refreshed: now the newest
        ledger.record(host: h1, conversation: .repeating(2), prefix: .repeating(4))
        #expect(ledger.count == 2 && ledger.heldPrefix(host: h2, conversation: c) == nil)
        #expect(ledger.heldPrefix(host: h1, conversation: c) == .repeating(3))
        ledger.forget(host: h1, conversation: c)
        #expect(ledger.heldPrefix(host: h1, conversation: c) == nil && ledger.count == 1)
    }
}
