import CommandLineKit

/// The one read of a `guest` duration flag: the kit's grammar (`DurationGrammar`: `250ms`, `30s`,
/// `10m`, `2h`, `7d`; a bare whole number is seconds). Every command's waits go through it.
extension Invocation {
    /// Nil when the flag is absent; zero allowed. What the grammar refuses is a usage error naming
    /// the form and, for a number whose meaning is plain (`2.5`, once read as seconds), what to
    /// write (`2500ms`).
    func duration(_ name: String) throws -> Duration? {
        guard let text = arguments.value(name) else { return nil }
        guard let d = DurationGrammar.parse(text, bare: .seconds) else {
            let fix = DurationFix.suggestion(text).map { ": write \($0)" } ?? ""
            throw usageError("\(name) takes a duration: \(DurationGrammar.examples) (got \"\(text.prefix(40))\"\(fix))")
        }
        return d
    }

    /// A duration within `range`.
    func duration(_ name: String, in range: ClosedRange<Duration>) throws -> Duration? {
        guard let d = try duration(name) else { return nil }
        guard range.contains(d) else {
            throw usageError("\(name) takes a duration from \(DurationFix.shown(range.lowerBound)) to "
                             + "\(DurationFix.shown(range.upperBound)) (got \(arguments.value(name)?.prefix(40) ?? ""))")
        }
        return d
    }

    /// A duration above zero (a wait or a timeout).
    func positiveDuration(_ name: String) throws -> Duration? {
        guard let d = try duration(name) else { return nil }
        guard d > .zero else { throw usageError("\(name) takes a duration above zero: 500ms, 2s, 1m") }
        return d
    }
}

/// What to write instead of a number the grammar refuses: it takes whole numbers only.
enum DurationFix {
    /// `2.5` (seconds) → `2500ms`, `0.2s` → `200ms`, `1.5m` → `90s`; nil when the text is no
    /// number of a unit, or no whole number of milliseconds.
    static func suggestion(_ text: String) -> String? {
        let units: [(String, Double)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000)]
        let (number, scale) = units.first { text.hasSuffix($0.0) }.map { (String(text.dropLast($0.0.count)), $0.1) } ?? (text, 1000)
        guard number.first?.isNumber == true, let v = Double(number), v.isFinite, v >= 0 else { return nil }
        let ms = (v * scale).rounded()
        guard abs(v * scale - ms) < 1e-6, ms < 1e15 else { return nil }
        return DurationGrammar.text(.milliseconds(Int64(ms)))
    }

    /// A range's end in the grammar (`0` for none at all).
    static func shown(_ d: Duration) -> String { d == .zero ? "0" : DurationGrammar.text(d) }
}
