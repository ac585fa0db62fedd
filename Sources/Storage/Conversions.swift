import Foundation

/// A Swift value that binds to a statement parameter.
public protocol SQLBindable {
    var sqlValue: SQLValue { get }
}

/// A Swift value that reads from a column. `nil` means the column holds another type.
public protocol SQLReadable {
    init?(sqlValue: SQLValue)
}

extension SQLValue: SQLBindable, SQLReadable {
    public var sqlValue: SQLValue { self }
    public init?(sqlValue: SQLValue) { self = sqlValue }
}

extension Int64: SQLBindable, SQLReadable {
    public var sqlValue: SQLValue { .integer(self) }
    public init?(sqlValue: SQLValue) {
        guard case let .integer(v) = sqlValue else { return nil }
        self = v
    }
}

extension Int: SQLBindable, SQLReadable {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
    public init?(sqlValue: SQLValue) {
        guard case let .integer(v) = sqlValue, let i = Int(exactly: v) else { return nil }
        self = i
    }
}

extension Bool: SQLBindable, SQLReadable {
    public var sqlValue: SQLValue { .integer(self ? 1 : 0) }
    /// Only 0 and 1 read as a Bool: anything else is a type error, not "true".
    public init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .integer(0): self = false
        case .integer(1): self = true
        default: return nil
        }
    }
}

extension Double: SQLBindable, SQLReadable {
    public var sqlValue: SQLValue { .real(self) }
    /// An INTEGER reads as a Double too: SQLite stores whole REALs of expressions as integers.
    public init?(sqlValue: SQLValue) {
        switch sqlValue {
        case let .real(v): self = v
        case let .integer(v): self = Double(v)
        default: return nil
        }
    }
}

extension String: SQLBindable, SQLReadable {
    public var sqlValue: SQLValue { .text(self) }
    public init?(sqlValue: SQLValue) {
        guard case let .text(v) = sqlValue else { return nil }
        self = v
    }
}

extension Array: SQLBindable, SQLReadable where Element == UInt8 {
    public var sqlValue: SQLValue { .blob(self) }
    public init?(sqlValue: SQLValue) {
        guard case let .blob(v) = sqlValue else { return nil }
        self = v
    }
}

extension Data: SQLBindable, SQLReadable {
    public var sqlValue: SQLValue { .blob([UInt8](self)) }
    public init?(sqlValue: SQLValue) {
        guard case let .blob(v) = sqlValue else { return nil }
        self = Data(v)
    }
}

extension Optional: SQLBindable where Wrapped: SQLBindable {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

extension Optional: SQLReadable where Wrapped: SQLReadable {
    /// NULL reads as `nil`; any other value must read as `Wrapped`.
    public init?(sqlValue: SQLValue) {
        if sqlValue == .null {
            self = .none
        } else if let v = Wrapped(sqlValue: sqlValue) {
            self = .some(v)
        } else {
            return nil
        }
    }
}
