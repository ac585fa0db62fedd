import Storage

/// The mailbox database: one table of stored mail frames.
///
///   seq           INTEGER PRIMARY KEY AUTOINCREMENT  arrival order; never reused, so a
///                                                    session's delivery cursor stays valid
///   recipient     BLOB(32)   device key the frame is for
///   sender        BLOB(32)   authenticated key of the sending connection
///   frame_id      BLOB(16)   the sender's id; (recipient, sender, frame_id) unique: a resent
///                            frame is stored once
///   collapse_key  BLOB(<=64) NULL when none; (recipient, sender, collapse_key) unique
///   size          INTEGER    length of sealed (caps are checked without reading blobs)
///   stored_ms     INTEGER    Unix ms when stored: `held ms` = now - stored_ms
///   expires_ms    INTEGER    Unix ms after which the sweep deletes it
///   sealed        BLOB       the opaque payload
///   source        TEXT       client address of the sending connection (per-address quota)
///
/// `seen` (key, last_ms, account): keys that authenticated here, when last, and the account of a
/// verified account proof; mail to other keys gets the short unseen-recipient TTL (or is
/// refused), and the account's own devices have room reserved in each other's mailboxes.
enum MailboxSchema {
    /// "HBRM" (Homebase relay mailbox).
    static let applicationID: Int32 = 0x4842_524D

    static let schema = Schema(applicationID: applicationID, migrations: [
        """
        CREATE TABLE mail (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            recipient BLOB NOT NULL,
            sender BLOB NOT NULL,
            frame_id BLOB NOT NULL,
            collapse_key BLOB,
            size INTEGER NOT NULL,
            stored_ms INTEGER NOT NULL,
            expires_ms INTEGER NOT NULL,
            sealed BLOB NOT NULL,
            UNIQUE (recipient, sender, frame_id)
        );
        CREATE INDEX mail_by_recipient ON mail (recipient, seq);
        CREATE UNIQUE INDEX mail_collapse ON mail (recipient, sender, collapse_key) WHERE collapse_key IS NOT NULL;
        CREATE INDEX mail_by_expiry ON mail (expires_ms);
        """,
        """
        ALTER TABLE mail ADD COLUMN source TEXT NOT NULL DEFAULT '';
        CREATE INDEX mail_by_sender ON mail (sender, size);
        CREATE INDEX mail_by_source ON mail (source, size);
        CREATE TABLE seen (key BLOB PRIMARY KEY, last_ms INTEGER NOT NULL, account BLOB) WITHOUT ROWID;
        """,
    ])
}
