import Foundation

/// `current_time`: the date and time now in an IANA time zone (default UTC).
public struct CurrentTimeTool: Tool {
    public let name = "current_time"
    public let description = "Current date and time in a time zone (IANA name such as Europe/Istanbul; default UTC)."
    public let parametersJSON = #"{"type":"object","properties":{"timezone":{"type":"string","description":"IANA time zone, e.g. Europe/Istanbul"}}}"#
    private let now: @Sendable () -> Date

    /// - Parameter now: the clock (tests pass a fixed date).
    public init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    /// Answers e.g. `Europe/Istanbul: Sunday 2026-11-29 15:00:00 (UTC+03:00)`.
    public func call(argumentsJSON: String) async throws -> String {
        let args = try ToolArguments(tool: name, json: argumentsJSON)
        var identifier = try args.string("timezone")?.trimmingSpaces ?? "UTC"
        if identifier.isEmpty { identifier = "UTC" }
        let zone = try Self.zone(identifier)
        let date = now()
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "EEEE yyyy-MM-dd HH:mm:ss"
        return "\(identifier): \(formatter.string(from: date)) (UTC\(Self.offset(zone.secondsFromGMT(for: date))))"
    }

    /// Only IANA identifiers as the tz database spells them (`UTC` included). Foundation also
    /// makes zones of `GMT+3` (as `GMT+0300`): those are refused like unknown names.
    /// The character check keeps paths (`../`) away from the zone-file lookup.
    static func zone(_ identifier: String) throws -> TimeZone {
        let allowed = identifier.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || $0 == "/" || $0 == "_" || $0 == "-" || $0 == "+"
        }
        guard allowed, !identifier.contains("//"), let zone = TimeZone(identifier: identifier),
              zone.identifier == identifier || identifier == "UTC" else {
            throw AgentError.unknownTimeZone(String(identifier.prefix(64)))
        }
        return zone
    }

    static func offset(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let minutes = abs(seconds) / 60
        let hh = minutes / 60, mm = minutes % 60
        return sign + (hh < 10 ? "0" : "") + "\(hh):" + (mm < 10 ? "0" : "") + "\(mm)"
    }
}
