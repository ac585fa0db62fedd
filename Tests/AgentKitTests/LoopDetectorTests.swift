import AgentKit
import Inference
import Testing

@Suite struct LoopDetectorTests {
    private func calls(_ names: String...) -> [ToolCall] {
        names.map { ToolCall(id: "x", name: "t", argumentsJSON: #"{"n": "\#($0)"}"#) }
    }

    private func firstHit(_ sequence: [ToolCall], maxPeriod: Int = 4) -> Int? {
        var detector = LoopDetector(maxPeriod: maxPeriod)
        return sequence.firstIndex { detector.record($0) }
    }

    @Test func distinctCallsNeverTrigger() {
        let sequence = (0..<50).map { ToolCall(id: "x", name: "t", argumentsJSON: #"{"n": \#($0)}"#) }
        #expect(firstHit(sequence) == nil)
    }

    @Test func anImmediateRepeatTriggers() {
        #expect(firstHit(calls("a", "b", "b")) == 2)
    }

    @Test func keyOrderAndSpacingDoNotHideARepeat() {
        let a = ToolCall(id: "1", name: "t", argumentsJSON: #"{"x": 1, "y": [2, 3]}"#)
        let b = ToolCall(id: "2", name: "t", argumentsJSON: #"{"y":[2,3],"x":1}"#)
        #expect(firstHit([a, b]) == 1)
    }

    @Test func sameArgumentsToAnotherToolIsNoRepeat() {
        let a = ToolCall(id: "1", name: "t", argumentsJSON: "{}")
        let b = ToolCall(id: "2", name: "u", argumentsJSON: "{}")
        #expect(firstHit([a, b]) == nil)
    }

    @Test func cyclesUpToTheMaximumPeriodTrigger() {
        #expect(firstHit(calls("a", "b", "a", "b")) == 3)
        #expect(firstHit(calls("a", "b", "c", "d", "a", "b", "c", "d")) == 7)
        #expect(firstHit(calls("a", "b", "c", "a", "b", "c"), maxPeriod: 2) == nil)
        #expect(firstHit(calls("a", "b", "a")) == nil)
    }
}
