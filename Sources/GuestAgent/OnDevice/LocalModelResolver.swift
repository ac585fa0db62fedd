import Glibc
import ModelStore
import Routing
import OnDeviceEngine

/// Which GGUF file the on-device brain serves, decided per call (never cached).
///
/// For a `community` model: that model when it is ready in the store, else the built-in one.
/// For the built-in model: the configured path (`model_path`, e.g. the tiny test model), else
/// the store's selection when ready (while it is not: another ready model). Nothing usable:
/// `.none(why)`, and the floor answers.
public struct LocalModelResolver: Sendable {
    public enum Resolution: Sendable, Equatable {
        case model(GGUFTarget)
        /// No local model is installed or usable; `why` is for the floor notice and `status`.
        case none(why: String)
    }

    /// A GGUF file configured directly (flag, config or environment); its alias is its file
    /// name without `.gguf`.
    public var configuredPath: String?
    public var store: ModelStore?

    public init(configuredPath: String?, store: ModelStore?) {
        self.configuredPath = configuredPath
        self.store = store
    }

    public func resolve(_ model: LocalModel) -> Resolution {
        if case .community(let id) = model, let target = ready(id) { return .model(target) }
        if let path = configuredPath, !path.isEmpty {
            guard access(path, R_OK) == 0 else { return .none(why: "the configured model file \(path) is missing") }
            return .model(GGUFTarget(path: path, alias: Self.alias(forPath: path)))
        }
        if let id = (try? store?.selection()) ?? nil {
            if let target = ready(id) { return .model(target) }
            // Selected before it finished downloading (or its pull failed): keep answering with
            // a model that is ready meanwhile.
            if let other = (try? store?.list())?.first(where: { $0.state == .ready }), let target = ready(other.id) {
                return .model(target)
            }
        }
        if case .community(let id) = model { return .none(why: "local model \(id) is not installed") }
        return .none(why: "no local model is installed")
    }

    /// The store's model `id` when it is ready and its file is on disk, with its projector when
    /// it has one on disk (a vision model: the engine then sees images).
    private func ready(_ id: String) -> GGUFTarget? {
        guard let store, let record = try? store.record(id), record.state == .ready,
              let file = record.files.first else { return nil }
        let path = store.path(repo: record.repo, file: file)
        let projector: String? = record.projector.map { store.path(repo: record.repo, file: $0) }
            .flatMap { (p: String) -> String? in access(p, R_OK) == 0 ? p : nil }
        return access(path, R_OK) == 0 ? GGUFTarget(path: path, alias: id, projector: projector) : nil
    }

    static func alias(forPath path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.hasSuffix(".gguf") ? String(name.dropLast(5)) : name
    }
}
