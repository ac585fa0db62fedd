import CommandLineKit
import Signing
import RelayWire

// Parsers for setting values: durations and byte sizes are the command-line kit's grammars (the
// relay refuses a bare number as a duration); counts, rates, keys and addresses are the relay's.
// Each returns nil on anything else, and the loader names the key and the expected form.

enum ValueParsing {
    static let durationForm = DurationGrammar.form(bare: .refused)
    static let sizeForm = SizeGrammar.form

    static func duration(_ s: String) -> Duration? { DurationGrammar.parse(s, bare: .refused) }

    static func size(_ s: String) -> Int? { SizeGrammar.parse(s).flatMap { Int(exactly: $0) } }

    static func count(_ s: String, min: Int = 1) -> Int? {
        guard let n = CountGrammar.whole(s), n >= min else { return nil }
        return n
    }

    static func rate(_ s: String) -> Double? {
        guard let d = Double(s), d.isFinite, d > 0 else { return nil }
        return d
    }

    /// Comma-separated keys of 64 hex digits (at least one).
    static func keys(_ s: String) -> [Bytes32]? {
        var out: [Bytes32] = []
        for word in s.split(separator: ",") {
            guard let key = PublicKey(hex: String(word.trimmed)) else { return nil }
            out.append(key)
        }
        return out.isEmpty ? nil : out
    }

    /// "host:port" or "[v6]:port" or ":port" (all interfaces of IPv4).
    static func listen(_ s: String) -> (String, UInt16)? {
        guard let colon = s.lastIndex(of: ":"), let port = UInt16(s[s.index(after: colon)...]) else { return nil }
        var host = String(s[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.isEmpty { host = "0.0.0.0" }
        return (host, port)
    }
}

extension Duration {
    /// Whole milliseconds (negative durations read as 0).
    var milliseconds: Int64 {
        let (s, atto) = components
        return Swift.max(0, s * 1000 + atto / 1_000_000_000_000_000)
    }

    /// For `--help` and logs: the largest unit that divides evenly.
    var settingText: String { DurationGrammar.text(self) }
}
