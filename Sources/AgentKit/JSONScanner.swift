/// Finds where one JSON object or array ends in a stream of scalars, without parsing it:
/// bracket depth, outside strings (escapes honoured). Validity is checked afterwards.
struct JSONScanner: Sendable {
    private var depth = 0
    private var inString = false
    private var escaped = false
    /// The value's closing bracket has been fed.
    private(set) var isComplete = false

    mutating func feed(_ c: Unicode.Scalar) {
        if inString {
            if escaped { escaped = false }
            else if c == "\\" { escaped = true }
            else if c == "\"" { inString = false }
            return
        }
        switch c {
        case "\"": inString = true
        case "{", "[": depth += 1
        case "}", "]":
            depth -= 1
            if depth <= 0 { isComplete = true }
        default: break
        }
    }
}
