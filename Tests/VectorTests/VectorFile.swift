// Parser for protocol/vectors/*.txt (format in protocol/vectors/README.md).
import Foundation
import Basics

struct VectorFile {
    let path: String
    var kind: String
    var expect: String
    var comment: String
    var fields: [String: String]
    var payload: [UInt8]

    struct Bad: Error, CustomStringConvertible { let description: String }

    init(path: String, text: String) throws {
        self.path = path
        var header: [String: String] = [:]
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        while let line = lines.first, !line.isEmpty {
            lines = lines.dropFirst()
            guard let colon = line.firstIndex(of: ":") else { throw Bad(description: "\(path): header line without ':'") }
            let key = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard header.updateValue(value, forKey: key) == nil else { throw Bad(description: "\(path): repeated key \(key)") }
        }
        guard let kind = header.removeValue(forKey: "kind"),
              let expect = header.removeValue(forKey: "expect") else {
            throw Bad(description: "\(path): missing kind or expect")
        }
        self.kind = kind
        self.expect = expect
        self.comment = header.removeValue(forKey: "comment") ?? ""
        self.fields = header
        let body = lines.joined().filter { !$0.isWhitespace }
        guard let bytes = bytes(fromHex: body) else { throw Bad(description: "\(path): payload is not hex") }
        self.payload = bytes
    }

    /// Rejects any header key the checker does not know: a typo must not silently skip a check.
    func requireOnly(_ allowed: Set<String>) throws {
        let unknown = Set(fields.keys).subtracting(allowed)
        guard unknown.isEmpty else { throw Bad(description: "\(path): unknown header key(s) \(unknown.sorted())") }
    }

    func hexField(_ key: String) throws -> [UInt8] {
        guard let v = fields[key] else { throw Bad(description: "\(path): missing field \(key)") }
        guard let b = bytes(fromHex: v) else { throw Bad(description: "\(path): field \(key) is not hex") }
        return b
    }

    func optionalHexField(_ key: String) throws -> [UInt8]? {
        fields[key] == nil ? nil : try hexField(key)
    }
}
