import Foundation
import Testing

/// What several fault cases share: a story asked in an interactive chat and its partial answer
/// on screen before the fault, and the checks that the device continued it rather than restarted.
extension FaultSuite {
    /// An interactive chat (its stall rung `stallTimeout`) asked for a story, returned once the
    /// stand-in engine's partial answer is on screen (`laptop-chat.log`).
    static func storyOnScreen(_ lb: Loopback, _ guest: Guest, stallTimeout: String) throws -> Conversation {
        let conversation = try guest.startConversation(["--stall-timeout": stallTimeout], log: "laptop-chat.log")
        try conversation.input.write(contentsOf: Data("tell me a story\n".utf8))
        try lb.procs.waitUntil(60, "the Homebase's partial answer on screen") {
            lb.procs.read("laptop-chat.log").contains(standInPartial)
        }
        return conversation
    }

    /// Waits for the story's answer line and checks it came on-device, the partial answer shown
    /// once; returns the line and the screen.
    static func storyContinuedOnDevice(_ lb: Loopback, _ conversation: Conversation,
                                       within seconds: Double) throws -> (line: AnswerLine, shown: String) {
        try lb.procs.waitUntil(seconds, "the answer line") { !conversation.answers.isEmpty }
        let shown = lb.procs.read("laptop-chat.log")
        let line = try #require(conversation.answers.first)
        #expect(line.brain == "on-device", "\(shown)")
        #expect(shown.components(separatedBy: standInPartial).count == 2, "the answer restarted: \(shown)")
        return (line, shown)
    }

    /// A `guest chat`'s output continues the stand-in's partial answer on-device, not restarted.
    static func expectContinuedOnDevice(_ out: String, _ line: AnswerLine) {
        #expect(out.hasPrefix(standInPartial), "the shown start of the answer was lost: \(out)")
        #expect(out.components(separatedBy: standInPartial).count == 2, "the answer restarted: \(out)")
        #expect(line.brain == "on-device", "\(line.line)")
    }

    /// The stall rung's fallback started before its `cancel` was settled (the guest's log has
    /// the fallback before the cancel's outcome).
    static func expectFallbackBeforeTheCancel(_ lb: Loopback, _ guest: Guest) throws {
        try lb.procs.waitUntil(30, "the cancel's outcome in the guest's log") { guest.log.contains("cancel outcome") }
        let log = guest.log
        let fallback = try #require(log.range(of: "fallback: homebase failed (timed out: stall)"), "\(log)")
        let outcome = try #require(log.range(of: "cancel outcome"), "\(log)")
        #expect(fallback.lowerBound < outcome.lowerBound, "the fallback waited for the cancel: \(log)")
    }
}
