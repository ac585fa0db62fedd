import AgentKit
import Foundation
import Testing

@Suite struct CurrentTimeToolTests {
    // 2026-11-29T12:00:00Z
    private let tool = CurrentTimeTool(now: { Date(timeIntervalSince1970: 1_795_953_600) })

    @Test func answersInTheAskedZone() async throws {
        #expect(try await tool.call(argumentsJSON: #"{"timezone": "Europe/Istanbul"}"#)
            == "Europe/Istanbul: Sunday 2026-11-29 15:00:00 (UTC+03:00)")
        #expect(try await tool.call(argumentsJSON: #"{"timezone": "America/New_York"}"#)
            == "America/New_York: Sunday 2026-11-29 07:00:00 (UTC-05:00)")
        #expect(try await tool.call(argumentsJSON: #"{"timezone": "Asia/Kolkata"}"#)
            == "Asia/Kolkata: Sunday 2026-11-29 17:30:00 (UTC+05:30)")
        #expect(try await tool.call(argumentsJSON: "{}") == "UTC: Sunday 2026-11-29 12:00:00 (UTC+00:00)")
    }

    @Test(arguments: ["Mars/Olympus", "GMT+3", "europe/istanbul", "../../etc/passwd", "Europe/Istanbul/"])
    func refusesZonesThatAreNotIANA(_ zone: String) async throws {
        await #expect(throws: AgentError.unknownTimeZone(zone)) {
            try await tool.call(argumentsJSON: #"{"timezone": "\#(zone)"}"#)
        }
    }

    @Test func refusesArgumentsOfTheWrongShape() async throws {
        await #expect(throws: AgentError.invalidArguments(tool: "current_time", detail: "timezone must be a string")) {
            try await tool.call(argumentsJSON: #"{"timezone": 3}"#)
        }
        await #expect(throws: AgentError.invalidArguments(tool: "current_time", detail: "arguments must be a JSON object")) {
            try await tool.call(argumentsJSON: "[1]")
        }
    }
}
