/// Loopback addresses and names, for servers that answer only their own machine (`guest serve`,
/// `homebase status --serve`): after DNS rebinding a web page's own name points at 127.0.0.1,
/// so a `Host` that is not a loopback name is refused (Ollama's fix for CVE-2024-28224).
public enum LoopbackNames {
    /// 127.0.0.0/8 and ::1 (numeric only: the listener does not resolve names).
    public static func isAddress(_ host: String) -> Bool {
        if host == "::1" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// A `Host` header naming loopback: `localhost`, 127.0.0.0/8 or `[::1]`, each with or without `:PORT`.
    public static func isHost(_ value: String) -> Bool {
        var host = Substring(value.lowercased())
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || isPort(rest) else { return false }
            return host[host.index(after: host.startIndex)..<close] == "::1"
        }
        if let colon = host.firstIndex(of: ":") {
            guard isPort(host[colon...]) else { return false }
            host = host[..<colon]
        }
        return host == "localhost" || isAddress(String(host))
    }

    /// `:` and 1 to 5 digits.
    private static func isPort(_ s: Substring) -> Bool {
        s.first == ":" && (2...6).contains(s.count) && s.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }
    }
}
