// libFuzzer target: opening envelopes, stream chunks and device records from hostile bytes.
// `make fuzz` builds it with -sanitize=fuzzer; a plain build gives a replayer:
// `fuzz-envelope FILE...` runs saved inputs (crash files) through the same code.
import FuzzReplay
import Sealing
import Signing

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEnvelope(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    openAsEnvelope(bytes)
    openAsStream([bytes])
    if let chunks = lengthPrefixed(bytes) { openAsStream(chunks) }
    // A record that decodes must be canonical: its encoding is the input.
    if let record = try? DeviceRecord(encoded: bytes), record.encoded != bytes { fatalError("record re-encodes differently") }
    return 0
}

/// Opening succeeds only for the genuine envelopes of the fixture, and only once.
func openAsEnvelope(_ bytes: [UInt8]) {
    var replay = ReplayGuard()
    guard let opened = try? Envelope.open(bytes, by: Fixture.recipient, from: Fixture.sender.record,
                                          replay: &replay, now: Fixture.now) else { return }
    guard Fixture.genuine.contains(bytes) else { fatalError("an envelope opened that nobody sealed") }
    guard opened.body.count <= Envelope.maxBodyBytes else { fatalError("body beyond the limit") }
    do {
        _ = try Envelope.open(bytes, by: Fixture.recipient, from: Fixture.sender.record, replay: &replay, now: Fixture.now)
        fatalError("the same envelope opened twice")
    } catch SealingError.replayed {
    } catch {
        fatalError("second open failed with \(error), not as a replay")
    }
}

/// Feeds `chunks` to one opener in order, then finishes. Whatever is delivered must be
/// canonical: a fresh sealer, fed the delivered data in order, reproduces the chunks exactly.
func openAsStream(_ chunks: [[UInt8]]) {
    let opener = try! StreamOpener(secret: Fixture.streamSecret)
    let sealer = try! StreamSealer(secret: Fixture.streamSecret)
    for chunk in chunks {
        guard let (data, isFinal) = try? opener.open(chunk) else { continue }
        guard (try? sealer.seal(data, final: isFinal)) == chunk else { fatalError("a chunk opened that is not canonical") }
    }
    _ = try? opener.finish()
}

/// The vectors' stream framing: chunks each prefixed by a u32 length; nil unless exact.
func lengthPrefixed(_ bytes: [UInt8]) -> [[UInt8]]? {
    var chunks: [[UInt8]] = []
    var rest = bytes[...]
    while !rest.isEmpty {
        guard rest.count >= 4 else { return nil }
        let n = rest.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        guard rest.count - 4 >= n else { return nil }
        chunks.append(Array(rest.dropFirst(4).prefix(n)))
        rest = rest.dropFirst(4 + n)
        guard chunks.count <= 64 else { return nil }
    }
    return chunks
}

#if !FUZZING
@main struct Replay {
    static func main() throws { try replayFiles(CommandLine.arguments.dropFirst(), through: fuzzEnvelope) }
}
#endif
