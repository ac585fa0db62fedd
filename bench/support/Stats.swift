// Percentiles and number formatting shared by the benches: they print numbers, never assert them.

/// Samples in milliseconds (or any unit): sorted once, read by quantile.
public struct Samples: Sendable {
    public private(set) var values: [Double] = []

    public init(_ values: [Double] = []) { self.values = values }

    public mutating func add(_ v: Double) { values.append(v) }

    public var count: Int { values.count }

    /// Nearest-rank quantile (q in 0...1); nan when empty.
    public func quantile(_ q: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let s = values.sorted()
        let rank = Int((q * Double(s.count)).rounded(.up)) - 1
        return s[Swift.min(s.count - 1, Swift.max(0, rank))]
    }

    public var p50: Double { quantile(0.5) }
    public var p99: Double { quantile(0.99) }
    public var min: Double { values.min() ?? .nan }
    public var max: Double { values.max() ?? .nan }
}

/// Milliseconds in a Duration.
public func ms(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
}

/// Fixed-point with `digits` decimals and thousands separators; "-" for nan.
public func fmt(_ value: Double, _ digits: Int = 1) -> String {
    guard value.isFinite else { return "-" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let negative = value < 0
    let scaled = (abs(value) * scale).rounded()
    let whole = Int(scaled / scale)
    var text = String(whole)
    var i = text.count - 3
    while i > 0 { text.insert(",", at: text.index(text.startIndex, offsetBy: i)); i -= 3 }
    if digits > 0 {
        let fraction = Int(scaled) - whole * Int(scale)
        let f = String(fraction)
        text += "." + String(repeating: "0", count: digits - f.count) + f
    }
    return (negative ? "-" : "") + text
}
