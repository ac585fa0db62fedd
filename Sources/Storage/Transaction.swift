/// The handle a transaction's body works through. Valid only inside that body: a handle kept
/// past it throws `.misuse`.
public final class Transaction {
    private let connection: Connection
    private var active = true

    init(_ connection: Connection) {
        self.connection = connection
    }

    func end() { active = false }

    @discardableResult
    public func execute(_ sql: String, _ parameters: any SQLBindable...) throws -> Int {
        try execute(sql, parameters: parameters)
    }

    @discardableResult
    public func execute(_ sql: String, parameters: [any SQLBindable]) throws -> Int {
        try checkActive("execute")
        return try connection.execute(sql, parameters.map(\.sqlValue))
    }

    public func query(_ sql: String, _ parameters: any SQLBindable...) throws -> [Row] {
        try query(sql, parameters: parameters)
    }

    public func query(_ sql: String, parameters: [any SQLBindable]) throws -> [Row] {
        try checkActive("query")
        return try connection.query(sql, parameters.map(\.sqlValue))
    }

    /// A nested transaction: a SAVEPOINT. A throw rolls back only this level and is rethrown;
    /// the outer body may catch it and go on.
    @discardableResult
    public func transaction<R>(_ body: (Transaction) throws -> R) throws -> R {
        try checkActive("transaction")
        return try connection.transaction {
            let inner = Transaction(connection)
            defer { inner.end() }
            return try body(inner)
        }
    }

    private func checkActive(_ operation: String) throws {
        if !active {
            throw StorageError.misuse(operation: operation, detail: "transaction handle used after its transaction ended")
        }
    }
}
