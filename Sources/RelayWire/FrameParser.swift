// Incremental relay-frame decoder for byte streams: a state machine fed arbitrary chunks.
// It holds at most one incomplete frame plus whatever the caller appended, rejects an oversize
// length from the header alone (before its body arrives), and stays failed after an error:
// the connection must be closed.

/// Splits a byte stream into relay frames.
///
///     var action = parser.parse(chunk)
///     while case .frame(let f) = action { handle(f); action = parser.next() }
///     if case .fail(let e) = action { close(with: e.relayErrorCode) }
public struct FrameParser: Sendable {
    public enum Action: Equatable, Sendable {
        /// No complete frame is buffered: feed more bytes.
        case needMore
        /// One decoded frame; call `next()` for any further frame already buffered.
        case frame(RelayFrame)
        /// The stream is malformed; every later call returns the same failure.
        case fail(WireError)
    }

    private var buffer: [UInt8] = []
    private var start = 0
    private var failure: WireError?

    public init() {}

    /// Bytes received but not yet returned as frames.
    public var bufferedCount: Int { buffer.count - start }

    /// Appends `bytes` and returns the first action (`next()`).
    public mutating func parse<S: Sequence>(_ bytes: S) -> Action where S.Element == UInt8 {
        if failure == nil { buffer.append(contentsOf: bytes) }
        return next()
    }

    /// The next frame already buffered, `.needMore`, or the failure.
    public mutating func next() -> Action {
        if let failure { return .fail(failure) }
        do throws(WireError) {
            guard bufferedCount >= RelayFrame.headerSize else { return .needMore }
            var header = ByteReader(buffer[start..<start + RelayFrame.headerSize])
            let (type, length) = try RelayFrame.readHeader(&header)
            let end = start + RelayFrame.headerSize + length
            guard end <= buffer.count else { return .needMore }
            let frame = try RelayFrame.decodeBody(type: type, buffer[(start + RelayFrame.headerSize)..<end])
            start = end
            compact()
            return .frame(frame)
        } catch {
            failure = error
            buffer = []
            start = 0
            return .fail(error)
        }
    }

    /// Drops consumed bytes: at once when all are consumed, else once they outweigh the rest.
    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= Limits.maxFrame)
            start = 0
        } else if start >= 4096 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
    }
}
