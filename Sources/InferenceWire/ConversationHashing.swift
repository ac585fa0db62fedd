import Sealing
import Wire

/// The prefix hash of a Wire message, for both ends (the guest's plan, the host's replica): a
/// plain-text message keeps the version 1 formula (role + content), so replicas and ledgers
/// from before stay valid; any other message hashes its whole version 2 encoding (parts, image
/// bytes, tool calls, tool call id), so no part of it can change without the hash changing.
public enum ConversationHashing {
    public static func extend(_ prefix: [UInt8], _ m: AppMessage.ChatMessage) -> [UInt8] {
        if m.isPlainText { return ConversationHash.extend(prefix, role: m.role.rawValue, content: m.content) }
        // A message that cannot be encoded cannot be sent either: its hash is never compared.
        return ConversationHash.extend(prefix, encodedMessage: (try? m.encoded()) ?? [m.role.rawValue])
    }

    /// The hash of a whole conversation.
    public static func of(_ messages: [AppMessage.ChatMessage]) -> [UInt8] {
        messages.reduce(ConversationHash.empty) { extend($0, $1) }
    }
}
