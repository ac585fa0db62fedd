import Glibc

/// How much the relay logs.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case error = 0, warn, info, debug
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var name: String { ["error", "warn", "info", "debug"][rawValue] }
    public init?(name: String) {
        guard let l = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = l
    }
}

/// One line per event worth knowing, to stderr. Callers pass keys (short hex) and reasons,
/// never payload bytes or tokens.
public struct Logger: Sendable {
    public var level: LogLevel
    public init(level: LogLevel) { self.level = level }

    public func error(_ m: @autoclosure () -> String) { log(.error, m) }
    public func warn(_ m: @autoclosure () -> String) { log(.warn, m) }
    public func info(_ m: @autoclosure () -> String) { log(.info, m) }
    public func debug(_ m: @autoclosure () -> String) { log(.debug, m) }

    private func log(_ l: LogLevel, _ m: () -> String) {
        guard l <= level else { return }
        let line = "homebase-relay \(l.name): \(m())\n"
        _ = line.utf8CString.withUnsafeBufferPointer { p in write(2, p.baseAddress, p.count - 1) }
    }
}
