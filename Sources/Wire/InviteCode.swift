// The invite as people pass it around (a chat message, a QR code): text, not bytes.
//
//   code  = "hb-invite-" || base64url without padding (b)
//   b     = u16 length | invite message (type 0x30 and body) | host device record | crc32 (4, BE)
//
// The host's device record travels with the invite so that the joiner can open the host's
// envelopes (grant, adverts, revoke) from the first one; the joiner checks that it is signed
// and names the invite's keys. The CRC-32 (IEEE) only catches copy errors with a clear message;
// it protects nothing: the join proof does (the host checks it against its own stored invite).
import RelayWire

/// Text form of an invite and the host's record.
public enum InviteCode {
    public static let prefix = "hb-invite-"
    /// Bound on the text accepted (an invite with many models and a token stays well below).
    public static let maxCharacters = 16 * 1024

    /// The text for `invite` and the host's encoded device record.
    public static func encode(_ invite: AppMessage.Invite, hostRecord: [UInt8]) throws(WireError) -> String {
        let message = try AppMessage.invite(invite).encode()
        guard message.count <= Int(UInt16.max) else {
            throw .tooLarge(field: "invite", length: message.count, limit: Int(UInt16.max))
        }
        var b: [UInt8] = [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message + hostRecord
        let crc = crc32(b)
        b += [UInt8(crc >> 24), UInt8(truncatingIfNeeded: crc >> 16), UInt8(truncatingIfNeeded: crc >> 8),
              UInt8(truncatingIfNeeded: crc)]
        return prefix + Base64URL.encode(b)
    }

    /// The invite and the host's record bytes (not verified here: the caller checks the record).
    /// Throws `badInviteCode` naming what is wrong, or the invite's own decoding error.
    public static func decode(_ text: String) throws(WireError) -> (invite: AppMessage.Invite, hostRecord: [UInt8]) {
        let trimmed = String(text.filter { !$0.isWhitespace })
        guard trimmed.hasPrefix(prefix) else { throw .badInviteCode("it does not start with \(prefix)") }
        guard trimmed.count <= maxCharacters else { throw .badInviteCode("longer than \(maxCharacters) characters") }
        guard let b = Base64URL.decode(String(trimmed.dropFirst(prefix.count))) else {
            throw .badInviteCode("characters outside base64url (A-Z a-z 0-9 - _)")
        }
        guard b.count > 6 else { throw .badInviteCode("too short") }
        let body = Array(b.dropLast(4))
        let crc = b.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard crc32(body) == crc else { throw .badInviteCode("checksum mismatch (copy the whole invite again)") }
        let n = Int(body[0]) << 8 | Int(body[1])
        guard n <= body.count - 2 else { throw .badInviteCode("too short") }
        guard case .invite(let invite) = try AppMessage.decode(body[2..<(2 + n)]) else {
            throw .badInviteCode("it holds another message than an invite")
        }
        return (invite, Array(body[(2 + n)...]))
    }

    /// CRC-32 (IEEE 802.3, reflected, as zlib computes it).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

/// RFC 4648 section 5, without padding.
enum Base64URL {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            var v = UInt32(bytes[i]) << 16
            if n > 1 { v |= UInt32(bytes[i + 1]) << 8 }
            if n > 2 { v |= UInt32(bytes[i + 2]) }
            for k in 0...n { out.append(alphabet[Int((v >> UInt32(18 - 6 * k)) & 63)]) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt32] = []
        for c in text.utf8 {
            guard let v = alphabet.firstIndex(of: c) else { return nil }
            values.append(UInt32(v))
        }
        guard values.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < values.count {
            let n = min(4, values.count - i)
            var v: UInt32 = 0
            for k in 0..<4 { v = v << 6 | (k < n ? values[i + k] : 0) }
            for k in 0..<(n - 1) { out.append(UInt8(truncatingIfNeeded: v >> UInt32(16 - 8 * k))) }
            i += 4
        }
        // Canonical: the unused low bits of the last character are zero.
        guard encode(out) == text else { return nil }
        return out
    }
}
