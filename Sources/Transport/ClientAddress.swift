/// The client's address behind a trusted proxy: the PROXY protocol v1 line
/// (`PROXY TCP4 src dst sport dport\r\n`, at most 107 bytes, before any other byte) or the
/// `X-Forwarded-For` header. Both are believed only from a configured proxy address: anyone else
/// could name any address and escape per-address limits. Pure functions.
public enum ClientAddress {
    public enum ProxyLine: Equatable, Sendable {
        case needMore
        case invalid
        /// The client's address and port (nil for `PROXY UNKNOWN`: keep the proxy's), and how many
        /// bytes the line took.
        case header(host: String?, port: UInt16, length: Int)
    }

    static let maxProxyLine = 107

    public static func parseProxyLine(_ bytes: [UInt8]) -> ProxyLine {
        let prefix = Array("PROXY ".utf8)
        if bytes.count < prefix.count { return Array(prefix.prefix(bytes.count)) == bytes ? .needMore : .invalid }
        guard Array(bytes.prefix(prefix.count)) == prefix else { return .invalid }
        guard let cr = bytes.firstIndex(of: 13) else { return bytes.count >= maxProxyLine ? .invalid : .needMore }
        guard cr + 1 < bytes.count else { return .needMore }
        guard bytes[cr + 1] == 10, cr + 2 <= maxProxyLine else { return .invalid }
        let words = String(decoding: bytes[prefix.count..<cr], as: UTF8.self).split(separator: " ", omittingEmptySubsequences: false)
        if words.first == "UNKNOWN" { return .header(host: nil, port: 0, length: cr + 2) }
        guard words.count == 5, words[0] == "TCP4" || words[0] == "TCP6", let port = UInt16(words[3]),
              isIPAddress(words[1], v6: words[0] == "TCP6") else { return .invalid }
        return .header(host: String(words[1]), port: port, length: cr + 2)
    }

    /// The right-most address of `X-Forwarded-For` that is not a trusted proxy (each proxy appends
    /// the address it saw; entries left of an untrusted one may be forged). Nil when none is valid.
    public static func forwardedFor(_ values: [String], trusted: Set<String>) -> String? {
        let entries = values.flatMap { $0.split(separator: ",") }.map { String($0.trimmingSpaces) }
        for e in entries.reversed() {
            var a = e
            if a.hasPrefix("["), let close = a.firstIndex(of: "]") { a = String(a[a.index(after: a.startIndex)..<close]) }
            guard isIPAddress(Substring(a), v6: a.contains(":")) else { return nil }
            if !trusted.contains(a) { return a }
        }
        return nil
    }

    static func isIPAddress(_ s: Substring, v6: Bool) -> Bool {
        if v6 {
            return !s.isEmpty && s.count <= 45 && s.contains(":") && s.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        }
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { p in !p.isEmpty && p.count <= 3 && p.allSatisfy(\.isASCII) && UInt8(p) != nil }
    }
}
