import InferenceWire
import Sealing
import Wire

/// What one request sends of its conversation, from what the host is believed to hold. Pure.
///
/// `base` counts the leading messages the host holds (their hash is the request's prefix
/// hash); the request carries only the messages after them. `base == 0` means inline: the
/// whole conversation, prefix hash all-zero. A belief matching no prefix of the conversation
/// (it was edited, or it is another conversation with the same id) also inlines.
struct ConversationPlan: Equatable {
    let conversationID: Bytes16
    let messages: [AppMessage.ChatMessage]
    /// `hashes[i]` is the prefix hash of `messages[0..<i]`; `hashes[0]` is the empty prefix.
    let hashes: [Bytes32]
    private(set) var base: Int

    /// Inline until `assume(held:)` says what the host holds.
    init(messages: [AppMessage.ChatMessage]) {
        self.messages = messages
        var hashes = [Bytes32(unchecked: ConversationHash.empty)]
        hashes.reserveCapacity(messages.count + 1)
        for m in messages {
            hashes.append(Bytes32(unchecked: ConversationHashing.extend(hashes[hashes.count - 1].bytes, m)))
        }
        self.hashes = hashes
        conversationID = Self.conversationID(messages: messages, hashes: hashes)
        base = 0
    }

    /// `held`: the prefix the host is believed to hold (nil: nothing known, inline). At least
    /// one message is always sent as new (a request that extends nothing would ask the host to
    /// answer its own replica).
    mutating func assume(held: Bytes32?) {
        base = 0
        if let held, messages.count > 1 {
            base = (1..<messages.count).last { hashes[$0] == held } ?? 0
        }
    }

    var inline: Bool { base == 0 }
    /// The hash of what the request extends (all-zero when inline).
    var prefixHash: Bytes32 { inline ? .zero : hashes[base] }
    var newMessages: [AppMessage.ChatMessage] { Array(messages[base...]) }
    /// What the host holds once it has taken the request: the hash of every message.
    var fullHash: Bytes32 { hashes[messages.count] }

    /// The repair after `cache_miss`: the whole conversation, inline.
    mutating func inlineAll() { base = 0 }

    /// The repair after `diverged`: a delta from the empty prefix appending the `base`
    /// messages the request extends, so the host's replica becomes exactly `prefixHash`
    /// whatever it held; the request is then retried unchanged. From the empty prefix because
    /// `diverged` says the prefix we believed the host acknowledged is wrong: no later base is
    /// trustworthy. Nil for an inline request (there is nothing to reconcile).
    func reconcilingDelta() -> AppMessage.SyncDelta? {
        guard !inline else { return nil }
        return AppMessage.SyncDelta(conversationID: conversationID, basePrefixHash: .zero,
                                    appended: Array(messages[..<base]), resultingPrefixHash: hashes[base])
    }

    /// Names the conversation without a separate id from the caller: derived from its messages
    /// up to and including the first user message, which later turns keep. Two conversations
    /// that open alike share an id; the prefix hash still tells them apart (one repair or an
    /// inline request, never a wrong answer). Hashed with role 0, which no real message has,
    /// so an id is never the head of a prefix hash.
    static func conversationID(messages: [AppMessage.ChatMessage], hashes: [Bytes32]) -> Bytes16 {
        let opening = (messages.firstIndex { $0.role == .user }).map { $0 + 1 } ?? messages.count
        let named = ConversationHash.extend(hashes[opening].bytes, role: 0, content: "conversation id")
        return Bytes16(unchecked: Array(named.prefix(16)))
    }
}
