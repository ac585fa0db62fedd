// The one grammar for large counts on command lines: a whole number with an optional
// decimal suffix, `500`, `200k`, `1.5m`, `2g` (k = 1,000; m = 1,000,000; g = 1,000,000,000).

/// `200k` → 200,000; nil for anything else, a negative number, or one past `Int64`.
package func parseCount(_ text: some StringProtocol) -> Int64? {
    let lower = text.lowercased()
    let units: [(String, Double)] = [("k", 1e3), ("m", 1e6), ("g", 1e9)]
    var scale = 1.0
    var number = Substring(lower)
    if let u = units.first(where: { lower.hasSuffix($0.0) }) {
        scale = u.1
        number = number.dropLast()
    }
    guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
          number.filter({ $0 == "." }).count <= 1, let n = Double(number) else { return nil }
    let value = (n * scale).rounded()
    guard value >= 0, value < 9.2e18, scale > 1 || !number.contains(".") else { return nil }
    return Int64(value)
}
