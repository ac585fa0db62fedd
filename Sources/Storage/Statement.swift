import CSQLite

/// SQLite copies the bytes before the bind call returns (the buffer is ours only briefly).
let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// Binding and reading on a raw `sqlite3_stmt*`. Callers hold the connection's lock.
enum Statement {
    /// Binds `params` to `?` parameters 1...n; the count must match exactly.
    static func bind(_ stmt: OpaquePointer, _ params: [SQLValue]) -> (code: Int32, detail: String?) {
        let expected = Int(sqlite3_bind_parameter_count(stmt))
        guard expected == params.count else {
            return (SQLITE_MISUSE, "statement has \(expected) parameters, \(params.count) given")
        }
        for (i, value) in params.enumerated() {
            let rc = bind(stmt, Int32(i + 1), value)
            if rc != SQLITE_OK { return (rc, nil) }
        }
        return (SQLITE_OK, nil)
    }

    private static func bind(_ stmt: OpaquePointer, _ index: Int32, _ value: SQLValue) -> Int32 {
        switch value {
        case .null:
            return sqlite3_bind_null(stmt, index)
        case let .integer(v):
            return sqlite3_bind_int64(stmt, index, v)
        case let .real(v):
            return sqlite3_bind_double(stmt, index, v)
        case let .text(s):
            // Explicit length (a String may hold NUL); a nil pointer would bind NULL, not "".
            let bytes = Array(s.utf8)
            if bytes.isEmpty { return sqlite3_bind_text(stmt, index, "", 0, SQLITE_TRANSIENT) }
            return bytes.withUnsafeBytes { buf in
                sqlite3_bind_text64(
                    stmt, index, buf.baseAddress!.assumingMemoryBound(to: CChar.self),
                    sqlite3_uint64(buf.count), SQLITE_TRANSIENT, UInt8(SQLITE_UTF8))
            }
        case let .blob(bytes):
            // A nil pointer would bind NULL, not an empty blob.
            if bytes.isEmpty { return sqlite3_bind_zeroblob(stmt, index, 0) }
            return bytes.withUnsafeBytes { buf in
                sqlite3_bind_blob64(stmt, index, buf.baseAddress, sqlite3_uint64(buf.count), SQLITE_TRANSIENT)
            }
        }
    }

    static func columnNames(_ stmt: OpaquePointer) -> [String] {
        (0..<sqlite3_column_count(stmt)).map { i in
            sqlite3_column_name(stmt, i).map { String(cString: $0) } ?? ""
        }
    }

    /// The current row, each value in the storage class SQLite holds it in.
    static func row(_ stmt: OpaquePointer) -> [SQLValue] {
        (0..<sqlite3_column_count(stmt)).map { i in
            switch sqlite3_column_type(stmt, i) {
            case SQLITE_INTEGER:
                return .integer(sqlite3_column_int64(stmt, i))
            case SQLITE_FLOAT:
                return .real(sqlite3_column_double(stmt, i))
            case SQLITE_TEXT:
                let count = Int(sqlite3_column_bytes(stmt, i))
                guard let p = sqlite3_column_text(stmt, i) else { return .text("") }
                return .text(String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self))
            case SQLITE_BLOB:
                let count = Int(sqlite3_column_bytes(stmt, i))
                guard count > 0, let p = sqlite3_column_blob(stmt, i) else { return .blob([]) }
                return .blob([UInt8](UnsafeRawBufferPointer(start: p, count: count)))
            default:
                return .null
            }
        }
    }
}
