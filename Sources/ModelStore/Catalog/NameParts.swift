/// The pieces of a name: family token, size token, version.
extension NameParser {
    static func isSeparator(_ c: Character) -> Bool { c == "-" || c == "_" || c == " " }

    /// Drops the `-GGUF` marker (and a leading `GGUF-`), whatever its case.
    static func strip(_ name: String) -> String {
        var s = name
        for suffix in ["-gguf", "_gguf", ".gguf", " gguf"] where s.lowercased().hasSuffix(suffix) {
            s = String(s.dropLast(suffix.count))
        }
        if s.lowercased().hasPrefix("gguf-") { s = String(s.dropFirst(5)) }
        return s
    }

    /// The longest family token that starts a word and is not followed by a letter.
    static func findFamily(_ lower: String) -> (Family, String.Index)? {
        for family in Families.all {
            var from = lower.startIndex
            while let r = lower.range(of: family.token, range: from..<lower.endIndex) {
                let startsWord = r.lowerBound == lower.startIndex || !lower[lower.index(before: r.lowerBound)].isLetter
                let endsWord = r.upperBound == lower.endIndex || !lower[r.upperBound].isLetter
                if startsWord && endsWord { return (family, r.upperBound) }
                from = lower.index(after: r.lowerBound)
            }
        }
        return nil
    }

    /// `1.5b`, `8x7b`, `135m`, `e2b` (Gemma 3n), `30b` + `a3b` (active experts); else a size word.
    static func findSize(_ words: [String]) -> (String, Double?)? {
        for (i, word) in words.enumerated() {
            guard let parameters = parameterCount(word) else { continue }
            var label = word.uppercased().replacingOccurrences(of: "X", with: "x")
            if i + 1 < words.count, words[i + 1].hasPrefix("a"), parameterCount(String(words[i + 1].dropFirst())) != nil {
                label += "-" + words[i + 1].uppercased()
            }
            return (label, parameters)
        }
        if let word = words.first(where: { Families.sizeWords.contains($0) }) { return (word, nil) }
        return nil
    }

    /// Parameters of a size token, or nil when the word is not one.
    static func parameterCount(_ word: String) -> Double? {
        var w = Substring(word)
        if w.hasPrefix("e"), w.count > 2 { w = w.dropFirst() }  // e2b: effective size
        guard let unit = w.last, unit == "b" || unit == "m" else { return nil }
        let scale: Double = unit == "b" ? 1e9 : 1e6
        let number = w.dropLast()
        let factors = number.split(separator: "x", omittingEmptySubsequences: false)
        guard (1...2).contains(factors.count) else { return nil }
        var product = 1.0
        for f in factors {
            guard !f.isEmpty, f.allSatisfy({ $0.isNumber || $0 == "." }), let v = Double(f), v > 0 else { return nil }
            product *= v
        }
        return product * scale
    }

    /// A version right after the family token (`qwen2.5`, `llama-3.2`, `gemma-3n`, `deepseek-r1`),
    /// else a `v0.3` word anywhere.
    static func findVersion(after end: String.Index, in lower: String, words: [String]) -> String? {
        var rest = lower[end...]
        if let first = rest.first, isSeparator(first) || first == "." { rest = rest.dropFirst() }
        let word = String(rest.prefix(while: { !isSeparator($0) }))
        if isVersion(word), parameterCount(word) == nil { return display(word) }
        if let v = words.first(where: { $0.hasPrefix("v") && isVersion($0) }) { return v }
        return nil
    }

    /// `2.5`, `3`, `3n`, `r1`, `v0.3`.
    static func isVersion(_ word: String) -> Bool {
        var w = Substring(word)
        if let f = w.first, f == "v" || f == "r" { w = w.dropFirst() }
        if let l = w.last, l.isLetter { w = w.dropLast() }
        guard let f = w.first, f.isNumber, let l = w.last, l.isNumber else { return false }
        return w.allSatisfy { $0.isNumber || $0 == "." }
    }

    static func display(_ version: String) -> String {
        version.hasPrefix("r") ? version.uppercased() : version
    }
}
