import Foundation
import Storage

/// The selection and the custom repos.
extension ModelStore {
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
