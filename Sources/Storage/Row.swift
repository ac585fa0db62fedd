/// One result row: the values in column order, readable by index or by column name.
public struct Row: Sendable, Equatable {
    /// Column names, as SQLite reports them (`AS` aliases included).
    public let columns: [String]
    public let values: [SQLValue]

    public init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    public subscript(index: Int) -> SQLValue { values[index] }

    /// Reads column `index` as `T`; `T?` reads NULL as nil.
    public func get<T: SQLReadable>(_ index: Int, as type: T.Type = T.self) throws -> T {
        guard values.indices.contains(index) else {
            throw StorageError.misuse(operation: "read column", detail: "no column \(index) in a row of \(values.count)")
        }
        guard let v = T(sqlValue: values[index]) else {
            throw StorageError.columnType(column: columns[index], expected: "\(T.self)", found: values[index].typeName)
        }
        return v
    }

    /// Reads the first column named `name` as `T`.
    public func get<T: SQLReadable>(_ name: String, as type: T.Type = T.self) throws -> T {
        guard let index = columns.firstIndex(of: name) else {
            throw StorageError.misuse(operation: "read column", detail: "no column named \(name)")
        }
        return try get(index, as: type)
    }
}
