import InferenceWire
import Sealing
import Wire

/// One conversation as this host holds it, with the prefix hash after every message, so a
/// request may extend any prefix of it (an edited turn extends an earlier one).
struct HeldConversation: Sendable {
    private(set) var messages: [AppMessage.ChatMessage] = []
    /// `hashes[i]` is the prefix hash of `messages[0...i]`.
    private(set) var hashes: [[UInt8]] = []

    init(_ messages: [AppMessage.ChatMessage] = []) { append(messages) }

    /// The hash of the whole conversation.
    var hash: [UInt8] { hashes.last ?? ConversationHash.empty }

    /// The messages whose prefix hash is `hash` (empty for the all-zero hash), nil if not held.
    func prefix(hashed hash: [UInt8]) -> [AppMessage.ChatMessage]? {
        if hash == ConversationHash.empty { return [] }
        guard let i = hashes.lastIndex(of: hash) else { return nil }
        return Array(messages[...i])
    }

    mutating func append(_ more: [AppMessage.ChatMessage]) {
        for m in more {
            hashes.append(ConversationHashing.extend(hash, m))
            messages.append(m)
        }
    }
}

/// Conversations by key, least recently used forgotten first beyond `capacity`. The own
/// account's replica (keyed by conversation id) and the grantees' cache (keyed by grantee key
/// and conversation id) are two of these. In memory: a restart forgets them, and the next
/// request is answered `diverged` / `cache_miss`, which the guest repairs in one retry.
struct ConversationMemory: Sendable {
    let capacity: Int
    private var items: [[UInt8]: (conversation: HeldConversation, used: UInt64)] = [:]
    private var tick: UInt64 = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    var count: Int { items.count }

    /// The whole conversation held under `key` (nil when none), without touching its use.
    func messages(_ key: [UInt8]) -> [AppMessage.ChatMessage]? { items[key]?.conversation.messages }

    /// The messages of `key`'s conversation up to `prefixHash`; nil when not held.
    mutating func prefix(_ key: [UInt8], hashed prefixHash: [UInt8]) -> [AppMessage.ChatMessage]? {
        if prefixHash == ConversationHash.empty { return [] }
        guard var item = items[key], let p = item.conversation.prefix(hashed: prefixHash) else { return nil }
        tick += 1
        item.used = tick
        items[key] = item
        return p
    }

    /// Holds `messages` as the whole of `key`'s conversation (a request's full conversation,
    /// then the same plus the answer).
    mutating func hold(_ key: [UInt8], _ messages: [AppMessage.ChatMessage]) {
        store(key, HeldConversation(messages))
    }

    /// Applies a `sync-delta`: truncates the held conversation to its base prefix, appends, and
    /// checks the resulting hash. False (nothing changed) when the base is not held or the hash
    /// does not match.
    mutating func apply(_ delta: AppMessage.SyncDelta, key: [UInt8]) -> Bool {
        let base: [AppMessage.ChatMessage]
        if delta.basePrefixHash.bytes == ConversationHash.empty {
            base = []
        } else {
            guard let b = items[key]?.conversation.prefix(hashed: delta.basePrefixHash.bytes) else { return false }
            base = b
        }
        var next = HeldConversation(base)
        next.append(delta.appended)
        guard next.hash == delta.resultingPrefixHash.bytes else { return false }
        store(key, next)
        return true
    }

    private mutating func store(_ key: [UInt8], _ conversation: HeldConversation) {
        tick += 1
        items[key] = (conversation, tick)
        if items.count > capacity, let oldest = items.min(by: { $0.value.used < $1.value.used })?.key {
            items[oldest] = nil
        }
    }
}
