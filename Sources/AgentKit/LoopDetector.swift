import Inference

/// Notices a run going round in circles: the same call with the same arguments again (A,A),
/// or a cycle (A,B,A,B; up to `maxPeriod` calls long). There is no cap on the number of calls:
/// twenty different calls in a row are fine; repeating one is not.
public struct LoopDetector: Sendable {
    /// The longest cycle looked for (4): A,B,C,D,A,B,C,D is caught, longer cycles are not.
    public var maxPeriod: Int
    private var history: [String] = []

    public init(maxPeriod: Int = 4) {
        self.maxPeriod = max(1, maxPeriod)
    }

    /// Records a call; true if the calls so far now end in a block repeated twice.
    public mutating func record(_ call: ToolCall) -> Bool {
        history.append(Self.signature(call))
        if history.count > 2 * maxPeriod { history.removeFirst() }  // older calls cannot matter
        let n = history.count
        for period in 1...maxPeriod where 2 * period <= n {
            if history[(n - period)...] == history[(n - 2 * period)..<(n - period)] { return true }
        }
        return false
    }

    /// Name plus canonical arguments: key order and spacing do not hide a repeat.
    static func signature(_ call: ToolCall) -> String {
        call.name + "\u{0}" + (ToolCallDecoder.canonical(call.argumentsJSON) ?? call.argumentsJSON.trimmingSpaces)
    }
}
