#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// `read_file`: a text file under the allowed directories, at most `maxBytes` of it.
public struct ReadFileTool: Tool {
    /// Default cap on bytes read (64 KiB): enough for a source file, small for a context window.
    public static let defaultMaxBytes = 64 * 1024
    public let name = "read_file"
    public let description = "Read a text file inside the directories the user allowed."
    public let parametersJSON = #"{"type":"object","properties":{"path":{"type":"string","description":"file path, absolute or relative to the first allowed directory"}},"required":["path"]}"#
    public let allowed: AllowedDirectories
    public let maxBytes: Int

    public init(allowed: AllowedDirectories, maxBytes: Int = defaultMaxBytes) {
        self.allowed = allowed; self.maxBytes = max(0, maxBytes)
    }

    public func call(argumentsJSON: String) async throws -> String {
        let path = try ToolArguments(tool: name, json: argumentsJSON).requiredString("path")
        let real = try allowed.resolve(path)
        // O_NOFOLLOW: if the last component was swapped for a symlink since `resolve`, refuse.
        let fd = open(real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw AgentError.io(path: path, detail: Self.errnoText()) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw AgentError.io(path: path, detail: Self.errnoText()) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw AgentError.notARegularFile(path) }
        var bytes = [UInt8](repeating: 0, count: maxBytes)
        var count = 0
        while count < maxBytes {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, maxBytes - count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw AgentError.io(path: path, detail: Self.errnoText()) }
            if n == 0 { break }
            count += n
        }
        let content = bytes[..<count]
        if content.contains(0) { throw AgentError.binaryFile(path) }
        var text = String(decoding: content, as: UTF8.self)
        if Int(info.st_size) > count {
            text += "\n[truncated: showing the first \(count) of \(info.st_size) bytes]"
        }
        return text
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}

/// `list_dir`: the entries of a directory under the allowed directories.
public struct ListDirTool: Tool {
    /// Default cap on entries listed (500): a huge directory must not flood the context.
    public static let defaultMaxEntries = 500
    public let name = "list_dir"
    public let description = "List a directory inside the directories the user allowed (default: the first one)."
    public let parametersJSON = #"{"type":"object","properties":{"path":{"type":"string","description":"directory path, absolute or relative to the first allowed directory"}}}"#
    public let allowed: AllowedDirectories
    public let maxEntries: Int

    public init(allowed: AllowedDirectories, maxEntries: Int = defaultMaxEntries) {
        self.allowed = allowed; self.maxEntries = max(0, maxEntries)
    }

    /// One entry per line, sorted; directories end in `/`, symlinks in `@`.
    public func call(argumentsJSON: String) async throws -> String {
        let path = try ToolArguments(tool: name, json: argumentsJSON).string("path") ?? "."
        let real = try allowed.resolve(path.isEmpty ? "." : path)
        guard AllowedDirectories.isDirectory(real) else { throw AgentError.notADirectory(path) }
        guard let dir = opendir(real) else { throw AgentError.io(path: path, detail: ReadFileTool.errnoText()) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            names.append(name + Self.suffix(real + "/" + name))
        }
        names.sort()
        if names.isEmpty { return "(empty directory)" }
        var lines = names.prefix(maxEntries).joined(separator: "\n")
        if names.count > maxEntries { lines += "\n[\(names.count - maxEntries) more entries not shown]" }
        return lines
    }

    private static func suffix(_ path: String) -> String {
        var info = stat()
        guard lstat(path, &info) == 0 else { return "" }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return "/"
        case S_IFLNK: return "@"
        default: return ""
        }
    }
}
