import Glibc

/// Where `llama-server` is: the configured path, else the first on PATH, else
/// `$HOMEBASE_ENGINE_DIR/bin/llama-server` (default `~/.cache/homebase/engine`, where
/// scripts/engine/install.sh puts it).
public struct EngineLocator: Sendable {
    public var configured: String?
    public var environment: [String: String]

    public init(configured: String? = nil, environment: [String: String]) {
        self.configured = configured
        self.environment = environment
    }

    /// The engine directory the install script uses.
    public var engineDirectory: String {
        if let dir = environment["HOMEBASE_ENGINE_DIR"], !dir.isEmpty { return dir }
        return (environment["HOME"] ?? "/root") + "/.cache/homebase/engine"
    }

    /// The places looked at, in order.
    public var candidates: [String] {
        if let configured, !configured.isEmpty { return [configured] }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/llama-server" } + [engineDirectory + "/bin/llama-server"]
    }

    /// The first executable candidate. A configured path that is not executable is an error,
    /// never silently replaced by another binary.
    public func locate() throws(EngineError) -> String {
        let all = candidates
        guard let found = all.first(where: { access($0, X_OK) == 0 }) else {
            throw .notFound(searched: configured.map { [$0] } ?? ["PATH", engineDirectory + "/bin"])
        }
        return found
    }
}
