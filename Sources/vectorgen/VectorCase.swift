// One test-vector file, in the style of age's test kit (C2SP/CCTV):
// a header of `key: value` lines (hex fields), a blank line, then the payload in hex.
// The format is specified in protocol/vectors/README.md.
import Basics

struct VectorCase {
    /// File name under protocol/vectors/, without extension (e.g. "frame-send-live").
    var name: String
    /// What the file exercises; the runner picks its checker by this.
    var kind: String
    /// `success` or a named failure (see protocol/vectors/README.md).
    var expect: String
    var comment: String
    /// Extra header fields in order; values are hex unless the kind says otherwise.
    var fields: [(String, String)]
    var payload: [UInt8]

    init(name: String, kind: String, expect: String, comment: String,
         fields: [(String, String)] = [], payload: [UInt8] = []) {
        self.name = name; self.kind = kind; self.expect = expect
        self.comment = comment; self.fields = fields; self.payload = payload
    }

    func render() -> String {
        var out = "kind: \(kind)\nexpect: \(expect)\ncomment: \(comment)\n"
        for (k, v) in fields { out += "\(k): \(v)\n" }
        out += "\n"
        let hex = hexString(payload)
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 64, limitedBy: hex.endIndex) ?? hex.endIndex
            out += hex[i..<j] + "\n"
            i = j
        }
        return out
    }
}

