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

    struct Active: Sendable {
        var attempt: Int
        var task: Task<Void, any Error>
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
}
