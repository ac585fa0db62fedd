// The one duration grammar of the three programs: a whole number and a unit, `250ms`, `30s`,
// `10m`, `2h`, `7d`. The relay refuses a bare number (its form says to add a unit); `guest` and
// `homebase` have always read one as seconds, and keep doing so.

/// How a number without a unit is read.
package enum BareNumber: Sendable {
    /// Refused (the relay's settings): the caller's message says to add a unit.
    case refused
    /// Seconds, with the sign `Int64` accepts (`+5`): `guest` and `homebase` flags and settings.
    case seconds
}

/// The units, longest suffix first where one ends another (`ms` before `s`).
package let durationUnits: [(suffix: String, milliseconds: Int64)] =
    [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000)]

/// `250ms`, `30s`, `10m`, `2h`, `7d`; nil for anything else, a negative number, or one too large
/// for a `Duration` of milliseconds.
package func parseDuration(_ text: some StringProtocol, bareNumber: BareNumber) -> Duration? {
    for unit in durationUnits where text.hasSuffix(unit.suffix) {
        let number = text.dropLast(unit.suffix.count)
        // "ms" also ends in "s": only the split whose number part is a number counts.
        guard let n = wholeNumber(number, signed: bareNumber == .seconds) else { continue }
        guard n <= Int64.max / unit.milliseconds / 1_000_000 else { return nil }
        return .milliseconds(n * unit.milliseconds)
    }
    guard bareNumber == .seconds, let n = wholeNumber(text, signed: true), n <= Int64.max / 1_000_000_000 else { return nil }
    return .seconds(n)
}

/// Digits only; with `signed`, also what `Int64(_:)` reads (a leading `+`), never below zero.
private func wholeNumber(_ text: some StringProtocol, signed: Bool) -> Int64? {
    guard !text.isEmpty else { return nil }
    if !signed, !text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) { return nil }
    guard let n = Int64(String(text)), n >= 0 else { return nil }
    return n
}
