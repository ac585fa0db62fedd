import Glibc

/// One `key = value` from a layer, with where it came from (for the error message).
public struct Assignment: Sendable, Equatable {
    public let key: String
    public let value: String
    /// `flag --mail-ttl`, `environment HOMEBASE_RELAY_MAIL_TTL`, `/etc/relay.conf line 3`.
    public let source: String
    /// The config file's line it was on (nil for the environment and flags).
    public let line: Int?

    public init(key: String, value: String, source: String, line: Int? = nil) {
        self.key = key; self.value = value; self.source = source; self.line = line
    }
}

/// The layering of settings, the same in every program: defaults < config file < environment <
/// flags. Each layer yields assignments in order; applying them in turn lets the later win.
public enum ConfigLayers {
    /// The whole order: the file's lines, then the environment's variables (by name), then the
    /// flags as given.
    public static func layered(file: [Assignment], environment: [Assignment], flags: [Assignment]) -> [Assignment] {
        file + environment + flags
    }

    /// A config file of `key = value` lines (`#` starts a comment, blank lines are skipped).
    /// Nil when the file does not exist (no settings yet); one that exists but cannot be read is
    /// a usage error.
    public static func readFile(_ path: String) throws(UsageError) -> [Assignment]? {
        guard access(path, F_OK) == 0 else { return nil }
        guard let text = readText(path) else {
            throw .unreadableFile(path: path, reason: String(cString: strerror(errno)))
        }
        return try parseFile(text, path: path)
    }

    /// The lines of a config file's text; `path` names it in sources and errors.
    public static func parseFile(_ text: String, path: String) throws(UsageError) -> [Assignment] {
        var out: [Assignment] = []
        for (n, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let line = trimmed(raw.prefix { $0 != "#" })
            if line.isEmpty { continue }
            guard let eq = line.firstIndex(of: "=") else {
                throw .badLine(path: path, line: n + 1, reason: "expected `key = value`")
            }
            out.append(Assignment(key: String(trimmed(line[..<eq])), value: String(trimmed(line[line.index(after: eq)...])),
                                  source: "\(path) line \(n + 1)", line: n + 1))
        }
        return out
    }

    /// The variables that start with `prefix`, by name: `HOMEBASE_RELAY_MAIL_TTL=3d` is
    /// `mail-ttl = 3d`. Names in `skipping` (after the prefix, as keys) are left out.
    public static func environment(_ environment: [String: String], prefix: String,
                                   skipping: Set<String> = []) -> [Assignment] {
        environment.filter { $0.key.hasPrefix(prefix) }.sorted { $0.key < $1.key }.compactMap { name, value in
            let key = String(name.dropFirst(prefix.count).lowercased().map { $0 == "_" ? "-" : $0 })
            return skipping.contains(key) ? nil : Assignment(key: key, value: value, source: "environment \(name)")
        }
    }

    /// The flags of `parsed` whose names (without `--`) are in `keys`, in the order given.
    public static func flags(_ parsed: ParsedArguments, keys: Set<String>) -> [Assignment] {
        parsed.ordered.filter { keys.contains($0.key) }
    }

    private static func trimmed(_ s: some StringProtocol) -> Substring {
        var s = Substring(s)
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s.removeLast() }
        return s
    }

    private static func readText(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n > 0 { bytes += buffer[0..<n] }
            if n < buffer.count {
                guard ferror(file) == 0 else { return nil }
                break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
