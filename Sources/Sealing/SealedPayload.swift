// What a relay frame's sealed bytes are, told apart by the first byte:
//
//   0x01 | enc (32) | ciphertext                   an envelope (its version byte is the tag)
//   0x02 | stream id (16) | counter u64 | ct       a chunk of a streamed reply
//   0x03 | enc (32) | ciphertext                   an introduction (first contact, `Introduction`)
//
// The stream id is the message id of the request envelope the stream answers: the requester
// knows it (it sealed it), the host learns it on opening. It lets the requester hand each chunk
// to the right StreamOpener; the relay sees it in clear (it could link the chunks by timing anyway).

public enum SealedPayload: Equatable, Sendable {
    case envelope([UInt8])
    case streamChunk(streamID: MessageID, chunk: ArraySlice<UInt8>)
    case introduction([UInt8])

    public static let envelopeTag: UInt8 = 0x01
    public static let streamChunkTag: UInt8 = 0x02
    public static let introductionTag: UInt8 = Introduction.tag

    /// Classifies relay payload bytes; nil for an unknown tag or a chunk too short to hold its id.
    /// Nothing is authenticated here: opening does that.
    public static func classify(_ bytes: [UInt8]) -> SealedPayload? {
        switch bytes.first {
        case envelopeTag:
            return .envelope(bytes)
        case streamChunkTag:
            guard bytes.count > 1 + MessageID.byteCount,
                  let id = MessageID(bytes: bytes[1...MessageID.byteCount]) else { return nil }
            return .streamChunk(streamID: id, chunk: bytes[(1 + MessageID.byteCount)...])
        case introductionTag:
            return .introduction(bytes)
        default:
            return nil
        }
    }

    /// Frames a sealed chunk (from `StreamSealer.seal`) for the relay.
    public static func streamChunkBytes(streamID: MessageID, chunk: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [streamChunkTag]
        out.reserveCapacity(1 + MessageID.byteCount + chunk.count)
        out += streamID.bytes
        out += chunk
        return out
    }
}
