// Names that people see (device names, account names) come from other devices, strangers
// included. One rule decides what a name may hold and how any text from a peer is shown:
// control characters (C0, DEL, C1: newlines, escape sequences), the Unicode line and paragraph
// separators and the bidirectional overrides are refused in names at decode and escaped on
// output (logs, listings), so a peer can neither forge a log line nor drive the terminal.

import RelayWire

public enum Printable {
    /// Longest account name in a `join` (UTF-8 bytes), as a device record's name.
    public static let maxNameBytes = 64

    /// True for a scalar that a name MUST NOT hold and output escapes.
    public static func isUnsafe(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x00...0x1F, 0x7F...0x9F: true        // C0, DEL, C1 (ESC, CSI, newlines, ...)
        case 0x2028, 0x2029: true                  // line and paragraph separators
        case 0x202A...0x202E, 0x2066...0x2069: true // bidirectional embeddings, overrides, isolates
        default: false
        }
    }

    /// The first unsafe scalar of `text`, if any.
    public static func firstUnsafe(_ text: String) -> Unicode.Scalar? {
        text.unicodeScalars.first(where: isUnsafe)
    }

    /// Throws `invalidValue` for an empty name (value 0) or one holding an unsafe scalar (its value).
    static func check(_ name: String, _ field: String) throws(WireError) {
        guard !name.isEmpty else { throw .invalidValue(field: field + " length", value: 0) }
        if let bad = firstUnsafe(name) { throw .invalidValue(field: field, value: Int(bad.value)) }
    }

    /// `text` with each unsafe scalar written as `\u{XX}` (hex), everything else as is.
    public static func escape(_ text: String) -> String {
        guard firstUnsafe(text) != nil else { return text }
        var out = ""
        for s in text.unicodeScalars {
            if isUnsafe(s) { out += "\\u{\(String(s.value, radix: 16))}" } else { out.unicodeScalars.append(s) }
        }
        return out
    }
}

extension ByteReader {
    /// A name shown to people (`Printable`): a str16 of 1 to 64 bytes without unsafe scalars.
    package mutating func name(_ field: String) throws(WireError) -> String {
        let s = try string(2, limit: Printable.maxNameBytes, field)
        try Printable.check(s, field)
        return s
    }
}

extension ByteWriter {
    /// A name (`ByteReader.name`): refused here too, so a sender learns before a receiver does.
    package mutating func name(_ s: String, _ field: String) throws(WireError) {
        try Printable.check(s, field)
        try string(2, s, limit: Printable.maxNameBytes, field)
    }
}
