import Basics

// The value grammars of the three programs, once: durations, byte sizes, whole numbers, on/off.
// Flags, environment variables and config files read values through these, so `30s` or `64MiB`
// means the same wherever it is typed.

/// `250ms`, `30s`, `10m`, `2h`, `7d` (`Basics.parseDuration`). The one difference between the
/// programs is a bare number: `guest` and `homebase` read it as seconds, the relay's settings
/// refuse it (its form says to add a unit).
public enum DurationGrammar {
    public enum Bare: Sendable { case seconds, refused }

    public static let examples = "250ms, 30s, 10m, 2h or 7d"
    /// The form in a bad-value message: what the value must look like.
    public static func form(bare: Bare) -> String {
        bare == .refused ? "a number with a unit: \(examples)" : "a duration: \(examples) (a bare number is seconds)"
    }

    public static func parse(_ text: some StringProtocol, bare: Bare) -> Duration? {
        parseDuration(text, bareNumber: bare == .seconds ? .seconds : .refused)
    }

    /// For `--help` and logs: the largest unit that divides evenly (`90s`, `2h`, `250ms`).
    public static func text(_ d: Duration) -> String {
        let (s, atto) = d.components
        let ms = max(0, s * 1000 + atto / 1_000_000_000_000_000)
        for (unit, size) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000)]
        where ms >= size && ms % size == 0 {
            return "\(ms / size)\(unit)"
        }
        return "\(ms)ms"
    }
}

/// Byte sizes: a whole number of bytes (`4096`), binary units (`64KiB`, `4MiB`, `1GiB`), or the
/// decimal count suffixes of `Basics.parseCount` (`500k`, `10m`, `1.5g`: thousands, millions,
/// billions). No space between number and unit.
public enum SizeGrammar {
    public static let form = "a byte count, optionally with a unit: 4096, 64KiB, 4MiB, 1GiB (or 500k, 10m)"
    private static let binary: [(String, Int64)] = [("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30)]

    public static func parse(_ text: some StringProtocol) -> Int64? {
        for (suffix, scale) in binary where text.hasSuffix(suffix) {
            guard let n = CountGrammar.whole(text.dropLast(suffix.count)), Int64(n) <= Int64.max / scale else { return nil }
            return Int64(n) * scale
        }
        return parseCount(text)
    }

    /// For `--help`: the largest binary unit that divides evenly (`64MiB`), else bytes.
    public static func text(_ n: Int64) -> String {
        for (unit, size) in binary.reversed() where n >= size && n % size == 0 { return "\(n / size)\(unit)" }
        return "\(n)"
    }
}

/// Whole numbers as typed on a command line: ASCII digits only (no sign, no space).
public enum CountGrammar {
    public static func whole(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(String(text))
    }
}

/// `on` or `off`.
public enum SwitchGrammar {
    public static let form = "on or off"
    public static func parse(_ text: some StringProtocol) -> Bool? {
        switch text { case "on": true; case "off": false; default: nil }
    }
}
