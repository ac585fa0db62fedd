#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// The directories the user lets file tools see (`--allow-dir`), resolved once.
///
/// Every path is resolved with `realpath` (symlinks and `..` followed) BEFORE it is checked,
/// so neither `allowed/../secret` nor a symlink inside pointing out gets through. An allowed
/// directory that is itself a symlink is resolved too, so paths through it still match.
public struct AllowedDirectories: Sendable, Equatable {
    /// Resolved absolute roots, without trailing slash (except `/`).
    public let roots: [String]

    /// - Throws: `AgentError.badAllowedDirectory` for a path that is not an existing directory.
    public init(_ directories: [String]) throws {
        roots = try directories.map { dir in
            guard let real = Self.realpath(dir), Self.isDirectory(real) else {
                throw AgentError.badAllowedDirectory(dir)
            }
            return real
        }
    }

    /// Resolves `path` (relative paths against the first root) and checks containment.
    /// - Returns: the resolved path, free of symlinks and `..`.
    public func resolve(_ path: String) throws -> String {
        guard let base = roots.first else { throw AgentError.noAllowedDirectories }
        guard !path.isEmpty, !path.utf8.contains(0) else { throw AgentError.notFound(path) }
        let absolute = path.hasPrefix("/") ? path : (base == "/" ? "/" : base + "/") + path
        guard let real = Self.realpath(absolute) else {
            // Say "outside" rather than "missing" for paths that would leave the roots anyway.
            if let parent = Self.realpath(Self.parent(of: absolute)), !contains(parent) {
                throw AgentError.pathNotAllowed(path)
            }
            throw AgentError.notFound(path)
        }
        guard contains(real) else { throw AgentError.pathNotAllowed(path) }
        return real
    }

    /// Whether a resolved path is one of the roots or below one.
    func contains(_ real: String) -> Bool {
        roots.contains { root in
            real == root || root == "/" || real.hasPrefix(root + "/")
        }
    }

    static func realpath(_ path: String) -> String? {
        guard let resolved = systemRealpath(path) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

/// The C `realpath`, out of the way of the static method's name.
private func systemRealpath(_ path: String) -> UnsafeMutablePointer<CChar>? {
    realpath(path, nil)
}
