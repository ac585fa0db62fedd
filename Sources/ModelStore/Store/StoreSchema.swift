import Foundation
import Storage

/// The model store's SQLite file (`models.sqlite`).
///
/// `attempt` grows on every pull and every cancel: a download task writes only while the row
/// still carries its attempt and says `downloading`, so a late progress update or a cancelled
/// task's last word never lands on a newer state.
enum StoreSchema {
    static let schema = Schema(applicationID: 0x4842_4D53, migrations: [  // "HBMS"
        """
        CREATE TABLE model(
            id TEXT PRIMARY KEY,
            repo TEXT NOT NULL,
            quant TEXT NOT NULL,
            files TEXT NOT NULL,
            projector TEXT,
            bytes INTEGER,
            state TEXT NOT NULL CHECK (state IN ('unsupported', 'absent', 'downloading', 'ready', 'failed')),
            received INTEGER NOT NULL DEFAULT 0,
            detail TEXT,
            attempt INTEGER NOT NULL DEFAULT 0,
            provisional INTEGER NOT NULL DEFAULT 0,
            updated_at INTEGER NOT NULL
        );
        CREATE TABLE custom_repo(repo TEXT PRIMARY KEY COLLATE NOCASE, added_at INTEGER NOT NULL);
        CREATE TABLE setting(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """,
        // A model wanted in the background (a sibling chose it): the wish outlives every process.
        """
        CREATE TABLE wanted(
            id TEXT PRIMARY KEY,
            repo TEXT NOT NULL,
            quant TEXT NOT NULL,
            select_when_ready INTEGER NOT NULL,
            since INTEGER NOT NULL,
            failure TEXT
        );
        """,
    ])

    static let columns = "id, repo, quant, files, projector, bytes, state, received, detail, provisional"

    static func record(_ row: Row) throws -> ModelRecord {
        let filesJSON: String = try row.get("files")
        let files = (try? JSONDecoder().decode([String].self, from: Data(filesJSON.utf8))) ?? []
        let bytes: Int64? = try row.get("bytes")
        let detail: String? = try row.get("detail")
        let state: ModelState
        switch try row.get("state", as: String.self) {
        case "unsupported": state = .unsupported(reason: detail ?? "")
        case "downloading": state = .downloading(DownloadProgress(received: try row.get("received"), total: bytes))
        case "ready": state = .ready
        case "failed": state = .failed(reason: detail ?? "")
        default: state = .absent
        }
        return ModelRecord(id: try row.get("id"), repo: try row.get("repo"), quant: try row.get("quant"),
                           files: files, projector: try row.get("projector"), bytes: bytes, state: state,
                           provisional: try row.get("provisional"))
    }

    static func json(_ files: [String]) -> String {
        (try? JSONEncoder().encode(files)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }
}
