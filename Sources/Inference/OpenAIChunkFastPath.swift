// The common stream chunk without JSONDecoder (#24: the Homebase reads one per token, and the
// decoder was most of its CPU per token). Only a text (or empty) delta is taken here:
//
//   {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" the"}}],"created":...,...}
//
// Anything else — an error, usage, logprobs, tool calls, reasoning, a value of another type than
// the decoder expects, a duplicate key, JSON this scanner does not take — answers nil, and the
// caller decodes the chunk with JSONDecoder as before, so every outcome is the decoder's.

enum OpenAIChunkFastPath {
    /// The first choice's text (nil: none) and finish reason (nil: none), or nil: use JSONDecoder.
    static func textDelta(_ data: String) -> (text: String?, finishReason: String?)? {
        var copy = data
        return copy.withUTF8 { buf -> (String?, String?)? in
            var s = Scanner(buf)
            guard let r = s.chunk(), s.atEnd else { return nil }
            return r
        }
    }

    private struct Scanner {
        let b: UnsafeBufferPointer<UInt8>
        var i = 0
        init(_ b: UnsafeBufferPointer<UInt8>) { self.b = b }

        var atEnd: Bool { mutating get { skipSpace(); return i == b.count } }

        mutating func skipSpace() {
            while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
        }

        mutating func eat(_ c: UInt8) -> Bool {
            skipSpace()
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }

        /// Each key of an object; `body` reads its value (false: give up). `unique`: a key seen
        /// twice gives up too (which one the decoder would take is its own business).
        mutating func object(unique: Bool = true, _ body: (inout Scanner, String) -> Bool) -> Bool {
            guard eat(0x7B) else { return false }  // {
            if eat(0x7D) { return true }
            var seen: Set<String> = []
            repeat {
                skipSpace()
                guard let key = string(), !unique || seen.insert(key).inserted, eat(0x3A), body(&self, key) else { return false }
            } while eat(0x2C)
            return eat(0x7D)
        }

        /// The top level: only `choices` is looked at; `error`, `usage` and any key whose value
        /// this scanner cannot skip send the chunk to the decoder.
        mutating func chunk() -> (String?, String?)? {
            var result: (String?, String?) = (nil, nil)
            let ok = object { s, key in
                switch key {
                case "choices": return s.choices(&result)
                case "error", "usage": return false
                default: return s.skipValue()
                }
            }
            return ok ? result : nil
        }

        /// `null` (no choices), `[]`, or one plain choice (the decoder checks the others' types: it takes more).
        mutating func choices(_ result: inout (String?, String?)) -> Bool {
            if literal("null") { return true }
            guard eat(0x5B) else { return false }  // [
            if eat(0x5D) { return true }
            guard choice(&result) else { return false }
            return eat(0x5D)
        }

        mutating func choice(_ result: inout (String?, String?)) -> Bool {
            object { s, key in
                switch key {
                case "delta": return s.delta(&result.0)
                case "finish_reason": return s.optionalString(&result.1)
                case "logprobs": return s.literal("null")
                default: return s.skipValue()
                }
            }
        }

        mutating func delta(_ text: inout String?) -> Bool {
            if literal("null") { return true }
            return object { s, key in
                switch key {
                case "content": return s.optionalString(&text)
                case "reasoning_content", "reasoning", "tool_calls": return s.literal("null")
                default: return s.skipValue()
                }
            }
        }

        mutating func optionalString(_ out: inout String?) -> Bool {
            if literal("null") { out = nil; return true }
            skipSpace()
            guard let v = string() else { return false }
            out = v
            return true
        }

        mutating func literal(_ word: StaticString) -> Bool {
            skipSpace()
            let n = word.utf8CodeUnitCount
            guard i + n <= b.count else { return false }
            for k in 0..<n where b[i + k] != word.utf8Start[k] { return false }
            i += n
            return true
        }

        /// A string at `i` (after spaces), escapes decoded; nil for anything JSON does not allow
        /// (a control character, a bad escape, a lone surrogate).
        mutating func string() -> String? {
            guard i < b.count, b[i] == 0x22 else { return nil }
            i += 1
            let start = i
            while i < b.count, b[i] != 0x22, b[i] != 0x5C {
                guard b[i] >= 0x20 else { return nil }
                i += 1
            }
            guard i < b.count else { return nil }
            if b[i] == 0x22 {
                defer { i += 1 }
                return String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
            }
            var out = [UInt8](UnsafeBufferPointer(rebasing: b[start..<i]))
            while i < b.count {
                let c = b[i]
                if c == 0x22 { i += 1; return String(decoding: out, as: UTF8.self) }
                guard c >= 0x20 else { return nil }
                if c != 0x5C { out.append(c); i += 1; continue }
                i += 1
                guard i < b.count else { return nil }
                let e = b[i]
                i += 1
                switch e {
                case 0x22, 0x5C, 0x2F: out.append(e)
                case 0x62: out.append(0x08)
                case 0x66: out.append(0x0C)
                case 0x6E: out.append(0x0A)
                case 0x72: out.append(0x0D)
                case 0x74: out.append(0x09)
                case 0x75:
                    guard var u = hex4() else { return nil }
                    if (0xD800...0xDBFF).contains(u) {
                        guard i + 1 < b.count, b[i] == 0x5C, b[i + 1] == 0x75 else { return nil }
                        i += 2
                        guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                        u = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(u) {
                        return nil
                    }
                    guard let scalar = Unicode.Scalar(u) else { return nil }
                    out.append(contentsOf: String(Character(scalar)).utf8)
                default: return nil
                }
            }
            return nil
        }

        mutating func hex4() -> UInt32? {
            guard i + 4 <= b.count else { return nil }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = b[i]
                let d: UInt8
                switch c {
                case 0x30...0x39: d = c - 0x30
                case 0x41...0x46: d = c - 0x41 + 10
                case 0x61...0x66: d = c - 0x61 + 10
                default: return nil
                }
                v = v << 4 | UInt32(d)
                i += 1
            }
            return v
        }

        /// Any JSON value, checked and skipped (strings decoded, so bad ones are refused); nested
        /// deeper than 32 goes to the decoder.
        mutating func skipValue(depth: Int = 0) -> Bool {
            skipSpace()
            guard i < b.count, depth < 32 else { return false }
            switch b[i] {
            case 0x22: return string() != nil
            case 0x7B: return object(unique: false) { s, _ in s.skipValue(depth: depth + 1) }
            case 0x5B:
                i += 1
                if eat(0x5D) { return true }
                repeat { guard skipValue(depth: depth + 1) else { return false } } while eat(0x2C)
                return eat(0x5D)
            case 0x74: return literal("true")
            case 0x66: return literal("false")
            case 0x6E: return literal("null")
            default: return number()
            }
        }

        /// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
        mutating func number() -> Bool {
            func digits(_ s: inout Scanner) -> Int {
                let from = s.i
                while s.i < s.b.count, (0x30...0x39).contains(s.b[s.i]) { s.i += 1 }
                return s.i - from
            }
            if i < b.count, b[i] == 0x2D { i += 1 }
            guard i < b.count else { return false }
            if b[i] == 0x30 { i += 1 } else if digits(&self) == 0 { return false }
            if i < b.count, b[i] == 0x2E {
                i += 1
                guard digits(&self) > 0 else { return false }
            }
            if i < b.count, b[i] == 0x65 || b[i] == 0x45 {
                i += 1
                if i < b.count, b[i] == 0x2B || b[i] == 0x2D { i += 1 }
                guard digits(&self) > 0 else { return false }
            }
            return true
        }
    }
}
