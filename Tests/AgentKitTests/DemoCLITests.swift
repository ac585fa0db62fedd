@testable import AgentKit
import Foundation
import Testing

/// `guest chat --tools --demo-model`, run as the built executable: the scripted model calls the
/// REAL current_time tool through the agent loop, and every output says it is scripted.
@Suite struct DemoCLITests {
    static let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/debug/guest").path

    /// Runs `guest ARGS` with throwaway config and data directories; returns status and stdout.
    func guest(_ args: [String]) throws -> (status: Int32, out: String) {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw DemoSetupError(description: "\(Self.binary) missing: swift build --build-tests first")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("homebase-demo-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var env = ProcessInfo.processInfo.environment
        env["XDG_CONFIG_HOME"] = dir + "/config"
        env["XDG_DATA_HOME"] = dir + "/data"
        return try runProgram(Self.binary, args, environment: env)
    }

    /// The hour in Istanbul (UTC+3 all year since 2016), two digits.
    static func istanbulHour(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 3 * 3600)!
        let h = calendar.component(.hour, from: date)
        return (h < 10 ? "0" : "") + "\(h)"
    }

    @Test func whatTimeIsItInIstanbulFromTheCLI() throws {
        let before = Date()
        let r = try guest(["chat", "--tools", "--demo-model", "what time is it in Istanbul?"])
        let after = Date()
        #expect(r.status == 0)
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.first == "[model fake (scripted), runtime fake: scripted demo model, not real inference]")
        // The scripted first turn asked for the tool in the model's dialect; the loop ran it.
        #expect(r.out.contains(#"[tool current_time {"timezone":"Europe/Istanbul"}]"#))
        let result = try #require(lines.first { $0.hasPrefix("[result] Europe/Istanbul: ") })
        #expect(result.hasSuffix("(UTC+03:00)"))
        // The second turn answered with the tool's result: the real hour in Istanbul now.
        let answer = try #require(lines.first { $0.hasPrefix("It is Europe/Istanbul: ") })
        let hours = Set([Self.istanbulHour(before), Self.istanbulHour(after)])
        #expect(hours.contains { answer.contains(" \($0):") }, "answer \(answer) is not at hour \(hours)")
        #expect(answer.contains("(UTC+03:00)") && answer.hasSuffix(DemoScript.label))
        #expect(r.out.contains("[demo model: scripted, not real inference]"))
    }

    @Test func withoutToolsTheDemoAnswersPlainlyAndSaysSo() throws {
        let r = try guest(["chat", "--demo-model", "what time is it in Istanbul?"])
        #expect(r.status == 0)
        #expect(!r.out.contains("[tool "))
        #expect(r.out.contains("No real inference happened. " + DemoScript.label))
    }

    @Test func theTimeZoneIsReadFromThePrompt() {
        #expect(DemoScript.timeZone(in: "what time is it in Istanbul?") == "Europe/Istanbul")
        #expect(DemoScript.timeZone(in: "and in new york") == "America/New_York")
        #expect(DemoScript.timeZone(in: "what time is it?") == nil)
        #expect(DemoScript.steps(prompt: "what time is it?", tools: true).first
            == .toolCall("current_time", #"{"timezone": "UTC"}"#))
        #expect(DemoScript.steps(prompt: "hello", tools: true).count == 1)
    }
}

struct DemoSetupError: Error, CustomStringConvertible {
    let description: String
}
