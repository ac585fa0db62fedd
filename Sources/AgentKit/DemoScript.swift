import Foundation

/// The scripts `guest chat --demo-model` plays: scripted turns around REAL tools, so the agent
/// loop can be seen end to end without an engine. Every scripted answer says it is scripted.
public enum DemoScript {
    /// The label closing every scripted answer.
    public static let label = "(scripted demo model: not real inference)"

    /// With tools, a question about the time becomes a real `current_time` call (time zone read
    /// from the prompt: "Istanbul" → `Europe/Istanbul`, default UTC) and an answer built from the
    /// tool's result. Anything else gets a fixed reply.
    public static func steps(prompt: String, tools: Bool) -> [FakeModel.Step] {
        guard tools, asksForTime(prompt) else {
            return [.answer("Hello from the scripted demo model. No real inference happened. " + label)]
        }
        let zone = timeZone(in: prompt) ?? "UTC"
        return [.toolCall("current_time", #"{"timezone": "\#(zone)"}"#),
                .echoLastToolResult(prefix: "It is ", suffix: ". " + label)]
    }

    static func asksForTime(_ prompt: String) -> Bool {
        let p = prompt.lowercased()
        return p.contains("time") || p.contains("clock") || p.contains("hour") || timeZone(in: prompt) != nil
    }

    /// The IANA zone whose city part a word (or two or three words joined, "New York") names;
    /// the longest name wins.
    static func timeZone(in prompt: String) -> String? {
        let words = prompt.split { !$0.isLetter }.map { $0.lowercased() }
        var names: [String] = []
        for length in (1...3).reversed() where words.count >= length {
            for start in 0...(words.count - length) { names.append(words[start..<(start + length)].joined(separator: "_")) }
        }
        for name in names {
            if let id = TimeZone.knownTimeZoneIdentifiers.first(where: {
                $0.contains("/") && $0.lowercased().hasSuffix("/" + name) && (try? CurrentTimeTool.zone($0)) != nil
            }) { return id }
        }
        return nil
    }
}
