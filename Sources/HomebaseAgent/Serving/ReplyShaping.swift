import Wire

/// How much of an answer's shape the relay may learn (SPEC 7, docs/SIDE-CHANNEL.md).
/// `off`: coalescing only (each chunk padded to its own bucket). `padded` (default): that, plus
/// (when `boundary` is set, off by default) the first chunk released on a boundary since the
/// request, and the end quantised (empty
/// chunks before the final one up to a length class of chunks). `cadence`: one chunk of one
/// constant size every `interval` while the stream is open (empty when no text came, text
/// split across ticks when much did), first tick one interval after the request, end quantised
/// on a ladder from a floor in time (`cadence-min-duration`, 8 s): every answer shorter than the
/// floor ends on it, so the stream's length tells nothing of such answers.
public enum ReplyShaping: String, Sendable, CaseIterable, Codable {
    case off, padded, cadence
}

extension ChunkBatcher {
    struct Shaping: Sendable, Equatable {
        var level: ReplyShaping = .padded
        /// cadence: the tick. Default 50 ms (about two tokens of a 25 token/s engine).
        var interval: Duration = .milliseconds(50)
        /// padded: the first chunk leaves at a multiple of this since the request; zero (the
        /// default): at once, since a boundary costs up to its length in time to first token.
        var boundary: Duration = .zero
        /// cadence: every chunk's padded plaintext (a chunk bucket): 256 bytes, a 280-byte chunk.
        var frameBucket = 256
        /// Length classes, in chunks: this, then its doublings (16: 16, 32, 64...). Default 16;
        /// cadence: its floor in ticks (`Configuration.cadenceMinDuration` / `interval`).
        var minFrames = 16

        /// The text one cadence chunk carries: its bucket less the chunk header and room for a
        /// few record headers (5 bytes each in the typed stream).
        var capacity: Int { max(1, frameBucket - 5 - 20) }

        /// True when `n` chunks and the final one make a length class (the stream may end there):
        /// `minFrames` times a power of two.
        func isClass(_ n: Int) -> Bool {
            let c = n + 1, f = max(1, minFrames)
            guard c >= f, c % f == 0 else { return false }
            return (c / f) & (c / f - 1) == 0
        }
    }

    /// Where the shaped stream is: its clock origin and the chunks it handed out.
    struct ShapeState: Sendable {
        var originNs: UInt64?
        var frames = 0
        /// padded: when the first chunk may leave (the boundary after its text came), fixed once.
        var releaseNs: UInt64?
    }

    /// A chunk left outside `next` (the pump's keep-alive): counted towards the length class.
    mutating func noteFrame() { shape.frames += 1 }

    /// `next` under `policy.shaping` (not `off`).
    mutating func shapedNext(nowNs: UInt64) -> Action {
        let s = policy.shaping
        let origin = shape.originNs ?? nowNs
        shape.originNs = origin
        if s.level == .cadence {
            if ended, pendingBytes == 0, s.isClass(shape.frames) { return .finished }
            let due = origin &+ UInt64(shape.frames + 1) &* ns(s.interval)
            if nowNs < due { return .wait(untilNs: due) }
            shape.frames += 1
            return .send(take(upTo: s.capacity))
        }
        // padded
        if pendingBytes == 0 {
            guard ended else { return .idle }
            if s.isClass(shape.frames) { return .finished }
            shape.frames += 1
            return .send([])  // padding chunk before the final one
        }
        if shape.frames == 0, s.boundary > .zero {
            let b = ns(s.boundary)
            let release = shape.releaseNs ?? origin &+ ((nowNs &- origin) + b - 1) / b * b
            shape.releaseNs = release
            if nowNs < release { return .wait(untilNs: release) }
        }
        let action = coalescedNext(nowNs: nowNs)
        if case .send = action { shape.frames += 1 }
        return action
    }

    /// Takes at most `limit` bytes of pending events (text split at a character), oldest first;
    /// a non-text event bigger than that goes whole when it comes first (a larger chunk, rare).
    mutating func take(upTo limit: Int) -> [ReplyEvent] {
        var out: [ReplyEvent] = []
        var used = 0
        while let e = pending.first {
            let size = Self.size(e) + 5
            if used + size <= limit || out.isEmpty && !isText(e) {
                out.append(e)
                pending.removeFirst()
                used += size
                pendingBytes -= Self.size(e)
                continue
            }
            if case .text(let t) = e, limit - used > 5 {
                var head = "", bytes = 0
                for c in t {
                    let n = c.utf8.count
                    if bytes + n > limit - used - 5 { break }
                    head.append(c)
                    bytes += n
                }
                if !head.isEmpty {
                    out.append(.text(head))
                    pending[0] = .text(String(t.dropFirst(head.count)))
                    pendingBytes -= bytes
                }
            }
            break
        }
        if pending.isEmpty { pendingBytes = 0 }
        return out
    }

    private func isText(_ e: ReplyEvent) -> Bool { if case .text = e { true } else { false } }
    private func ns(_ d: Duration) -> UInt64 { UInt64(max(1, d.nanoseconds)) }
}

extension HomebaseAgent {
    /// `status`'s line: the level and what it promises.
    var shapingStatus: String {
        switch configuration.replyShaping {
        case .off: "off (coalescing only)"
        case .padded: configuration.shapingBoundary > .zero
            ? "padded (first chunk on a \(configuration.shapingBoundary.wholeMilliseconds) ms boundary, end quantised)"
            : "padded (end quantised; first chunk at once: shaping-boundary adds a release boundary)"
        case .cadence:
            "cadence (one \(configuration.batchPolicy.shaping.frameBucket + 24)-byte chunk every \(configuration.cadenceInterval.wholeMilliseconds) ms; "
                + "a stream lasts \(Self.seconds(configuration.cadenceFloor)), or a doubling of it: cadence-min-duration)"
        }
    }

    /// `8 s`, `6.4 s`: a floor as `status` words it.
    static func seconds(_ d: Duration) -> String {
        let ms = d.wholeMilliseconds
        return ms % 1000 == 0 ? "\(ms / 1000) s" : "\(Double(ms) / 1000) s"
    }
}
