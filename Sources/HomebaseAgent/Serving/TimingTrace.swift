import Dispatch
import Synchronization

/// The opt-in timing trace of one request (`Configuration.traceTimings`): the uptime clock at
/// each step the host takes from the opened delivery to the first chunk. Times only: never the
/// prompt, the answer, keys or who asked. One log line per request, when it ends:
///
///     timing: received=123456789 admitted=+41000 engine-called=+52000 accept-posted=+60000 ...
///
/// `received` is the uptime clock in nanoseconds (`DispatchTime.now().uptimeNanoseconds`),
/// every other step is nanoseconds after it; a step not reached is `-`.
public final class TimingTrace: Sendable {
    /// In the order the line lists them (not necessarily the order they happen in).
    public enum Step: Int, CaseIterable, Sendable {
        /// The opened delivery reached the agent.
        case received
        /// Admission, the grant's rate and the concurrency gate passed.
        case admitted
        /// The engine's HTTP request was started.
        case engineCalled
        /// `accept` was sealed and handed to the link.
        case acceptPosted
        /// The conversation replica (before the answer) is on disk.
        case replicaWritten
        /// The engine's first non-empty text arrived.
        case firstEngineText
        /// The first chunk was sealed and handed to the link.
        case firstChunkPosted
        /// The request's replay check (its store commit, on its own thread) was seen settled.
        case replayChecked
        /// The engine's stream ended (`.done` read): what follows is the answer's tail.
        case engineDone
        /// Before `received`: the link read the request's frame (the Courier opened, checked
        /// and decoded it, and two tasks handed it on, between this and `received`).
        case linkRead

        public var name: String {
            switch self {
            case .received: "received"
            case .admitted: "admitted"
            case .engineCalled: "engine-called"
            case .acceptPosted: "accept-posted"
            case .replicaWritten: "replica-written"
            case .firstEngineText: "first-engine-text"
            case .firstChunkPosted: "first-chunk-posted"
            case .replayChecked: "replay-checked"
            case .engineDone: "engine-done"
            case .linkRead: "link-read"
            }
        }
    }

    private let marks = Mutex<[UInt64?]>(Array(repeating: nil, count: Step.allCases.count))

    /// `linkRead`: when the link read the request's frame (`Delivery.receivedAt`), put on the
    /// uptime clock by its age now.
    init(linkRead: ContinuousClock.Instant? = nil) {
        mark(.received)
        if let linkRead {
            let age = UInt64(max(0, (ContinuousClock.now - linkRead).nanoseconds))
            marks.withLock { $0[Step.linkRead.rawValue] = $0[Step.received.rawValue].map { $0 &- age } }
        }
    }

    /// Notes `step` now; only its first time counts.
    func mark(_ step: Step) {
        let now = DispatchTime.now().uptimeNanoseconds
        marks.withLock { if $0[step.rawValue] == nil { $0[step.rawValue] = now } }
    }

    var line: String {
        let m = marks.withLock { $0 }
        let start = m[0] ?? 0
        return "timing: " + Step.allCases.map { s in
            guard let t = m[s.rawValue] else { return "\(s.name)=-" }
            let d = Int64(bitPattern: t &- start)
            return s == .received ? "\(s.name)=\(t)" : "\(s.name)=\(d < 0 ? "" : "+")\(d)"
        }.joined(separator: " ")
    }

    /// Reads a `timing:` line back: each step reached on the uptime clock (ns); nil for other lines.
    public static func parse(_ line: String) -> [Step: UInt64]? {
        guard line.hasPrefix("timing: ") else { return nil }
        var fields: [String: Substring] = [:]
        for word in line.dropFirst(8).split(separator: " ") {
            guard let eq = word.firstIndex(of: "=") else { return nil }
            fields[String(word[..<eq])] = word[word.index(after: eq)...]
        }
        guard let r = fields[Step.received.name].flatMap({ UInt64($0) }) else { return nil }
        var out: [Step: UInt64] = [.received: r]
        for s in Step.allCases where s != .received {
            guard let v = fields[s.name], v.hasPrefix("+") || v.hasPrefix("-") else { continue }
            if let d = Int64(v.hasPrefix("+") ? v.dropFirst() : v) { out[s] = UInt64(Int64(r) + d) }
        }
        return out
    }
}
