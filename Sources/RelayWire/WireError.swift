// The one error type of Wire. A malformed frame closes that connection with this reason; the
// messages name fields and sizes only, never contents (contents may be prompts or secrets).

/// Why bytes could not be decoded (or a value could not be encoded, or parts not reassembled).
public enum WireError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input ended before `field` was complete.
    case truncated(field: String)
    /// `count` bytes were left after the last field; encodings are exact.
    case trailingBytes(count: Int)
    /// `field` is `length` bytes (or items) long, more than its `limit`.
    case tooLarge(field: String, length: Int, limit: Int)
    /// A delivery class byte that is neither live (1) nor mail (2).
    case badClass(UInt8)
    /// `field` holds a value the protocol does not define (an unknown role, a flag byte not 0/1).
    case invalidValue(field: String, value: Int)
    /// `field` is not valid UTF-8.
    case invalidUTF8(field: String)
    /// A live `send` carried a collapse key; collapse keys exist only for mail.
    case collapseKeyOnLive
    /// A part's index is not below its count, or its count is zero or larger than its total.
    case badPartIndex(index: Int, count: Int)
    /// A part with this index of this message was already received.
    case duplicatePart(index: Int)
    /// A part disagrees with earlier parts of its message (count, total) or the bytes do not
    /// add up to the announced total; the message is discarded.
    case inconsistentParts
    /// The reassembler already holds its maximum of incomplete messages.
    case tooManyInFlight(limit: Int)
    /// An invite's text form (`InviteCode`) is not one: the reason says what is wrong with it.
    case badInviteCode(String)

    public var description: String {
        switch self {
        case .truncated(let f): "truncated: input ended inside \(f)"
        case .trailingBytes(let n): "malformed: \(n) trailing byte(s) after the last field"
        case .tooLarge(let f, let n, let l): "too large: \(f) is \(n), limit \(l)"
        case .badClass(let b): "malformed: delivery class \(b) is neither live (1) nor mail (2)"
        case .invalidValue(let f, let v): "malformed: \(f) has undefined value \(v)"
        case .invalidUTF8(let f): "malformed: \(f) is not valid UTF-8"
        case .collapseKeyOnLive: "malformed: a live send carries a collapse key"
        case .badPartIndex(let i, let c): "malformed: part index \(i) of count \(c)"
        case .duplicatePart(let i): "duplicate part \(i)"
        case .inconsistentParts: "inconsistent parts: count, total or sizes disagree; message discarded"
        case .tooManyInFlight(let l): "too many incomplete messages in flight (limit \(l))"
        case .badInviteCode(let why): "not a valid invite: \(why)"
        }
    }
}
