import Foundation
import Storage
import Synchronization

/// The guest's on-device models: what is downloaded, downloading, ready, failed or unsupported,
/// which one is selected, and the custom repos the user added.
///
/// `ready` is written only after `verifyLoad` (the guest starts llama-server on the files and
/// waits for /health) succeeded for the same attempt. Files live under `<directory>/models/
/// <owner>/<name>/<path in repo>`; the database is `<directory>/models.sqlite`.
public final class ModelStore: Sendable {
    /// Loads the model once; throw `ModelStoreError.unsupported` when it can never run here
    /// (the state becomes terminal), any other error for a failure worth retrying.
    public typealias VerifyLoad = @Sendable (LoadCandidate) async throws -> Void

    public struct Config: Sendable {
        /// The data directory; must exist.
        public var directory: String
        public var hub: HubConfig
        /// What the selection falls back to when the selected model is deleted (nil: none, the
        /// built-in on-device brain).
        public var defaultSelection: String?
        /// Automatic resumes per file after a cut connection.
        public var maxResumes: Int
        /// Progress reports (and database writes) at most once per this many bytes.
        public var progressStep: Int64

        public init(directory: String, hub: HubConfig, defaultSelection: String? = nil, maxResumes: Int = 3,
                    progressStep: Int64 = 1 << 20)
        {
            self.directory = directory
            self.hub = hub
            self.defaultSelection = defaultSelection
            self.maxResumes = maxResumes
            self.progressStep = progressStep
        }
    }

    struct Active: Sendable {
        var attempt: Int
        var task: Task<Void, any Error>?
    }

    public let config: Config
    let db: Database
    let hub: HubClient
    let verifyLoad: VerifyLoad
    /// Downloads running in this process, by model id.
    let active = Mutex<[String: Active]>([:])

    public init(config: Config, verifyLoad: @escaping VerifyLoad) throws {
        self.config = config
        self.verifyLoad = verifyLoad
        hub = HubClient(config: config.hub)
        db = try Database(path: (config.directory as NSString).appendingPathComponent("models.sqlite"),
                          schema: StoreSchema.schema)
    }

    /// Where a repo file lives on disk.
    public func path(repo: String, file: String) -> String {
        "\(config.directory)/models/\(repo)/\(file)"
    }

    public func list() throws -> [ModelRecord] {
        try db.query("SELECT \(StoreSchema.columns) FROM model ORDER BY repo, quant").map(StoreSchema.record)
    }

    public func record(_ id: String) throws -> ModelRecord {
        guard let row = try db.query("SELECT \(StoreSchema.columns) FROM model WHERE id = ?", id).first else {
            throw ModelStoreError.unknownModel(id)
        }
        return try StoreSchema.record(row)
    }

    public func state(_ id: String) throws -> ModelState {
        (try? record(id))?.state ?? .absent
    }

    // MARK: selection

    /// The selected model id, or the configured default.
    public func selection() throws -> String? {
        let rows = try db.query("SELECT value FROM setting WHERE key = 'selected'")
        return try rows.first?.get(0, as: String.self) ?? config.defaultSelection
    }

    /// Selects a ready model, or one still downloading (it serves once ready).
    public func select(_ id: String) throws {
        let state = try record(id).state
        switch state {
        case .ready, .downloading: break
        default: throw ModelStoreError.invalidState(model: id, state: state.name, operation: "select")
        }
        try db.execute("INSERT INTO setting(key, value) VALUES ('selected', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", id)
    }

    // MARK: custom repos

    /// Adds a custom repo (validated, no network); false when it was already there.
    @discardableResult
    public func addCustomRepo(_ raw: String) throws -> Bool {
        let repo = try RepoID.validate(raw)
        return try db.execute("INSERT OR IGNORE INTO custom_repo(repo, added_at) VALUES (?, ?)",
                              repo, Int64(Date().timeIntervalSince1970)) == 1
    }

    /// Custom repos in the order added; `provisional` until one of its models loaded.
    public func customRepos() throws -> [(repo: String, provisional: Bool)] {
        try db.query("""
            SELECT c.repo, NOT EXISTS (SELECT 1 FROM model m WHERE m.repo = c.repo AND m.state = 'ready') AS provisional
            FROM custom_repo c ORDER BY c.added_at, c.repo
            """).map { (try $0.get(0), try $0.get(1)) }
    }
}
