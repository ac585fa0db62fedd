// The prefix hash that names a conversation's state on both ends without sending it:
// a request carries the hash of the prefix it extends plus only the new messages; the host
// answers `diverged` (own account) or `cache_miss` (another account) when it holds no such prefix.
import CSodium
import Signing

public enum ConversationHash {
    /// The hash of the empty conversation: 32 zero bytes.
    public static let empty = [UInt8](repeating: 0, count: 32)

    /// `next = SHA-256("homebase conversation v1" || 0x00 || prefix (32) || role u8 || u32 len || content)`.
    /// `role` is the Wire role code (1 system, 2 user, 3 assistant, 4 tool).
    public static func extend(_ prefix: [UInt8], role: UInt8, content: String) -> [UInt8] {
        precondition(prefix.count == 32, "a prefix hash is 32 bytes")
        ensureSodium()
        let text = Array(content.utf8)
        var input = Array("homebase conversation v1".utf8)
        input.append(0)
        input += prefix
        input.append(role)
        input.appendBigEndian(UInt32(truncatingIfNeeded: text.count))
        input += text
        var out = [UInt8](repeating: 0, count: 32)
        _ = crypto_hash_sha256(&out, input, UInt64(input.count))
        return out
    }

    /// A message plain text cannot say (content parts, images, tool calls, a tool result):
    /// `next = SHA-256("homebase conversation v2" || 0x00 || prefix (32) || encoded message)`,
    /// where `encoded` is its Wire version 2 encoding (role included). Plain-text messages keep
    /// the version 1 formula, so text-only conversations keep their hashes.
    public static func extend(_ prefix: [UInt8], encodedMessage: [UInt8]) -> [UInt8] {
        precondition(prefix.count == 32, "a prefix hash is 32 bytes")
        ensureSodium()
        var input = Array("homebase conversation v2".utf8)
        input.append(0)
        input += prefix
        input += encodedMessage
        var out = [UInt8](repeating: 0, count: 32)
        _ = crypto_hash_sha256(&out, input, UInt64(input.count))
        return out
    }

    /// The hash of a whole conversation, folding `extend` from `empty`.
    public static func of(_ messages: some Sequence<(role: UInt8, content: String)>) -> [UInt8] {
        messages.reduce(empty) { extend($0, role: $1.role, content: $1.content) }
    }
}
