// libFuzzer target: relay-frame decoding (whole-message and incremental).
// `make fuzz` builds it with -sanitize=fuzzer; a plain build gives a replayer:
// `fuzz-frames FILE...` runs saved inputs (crash files) through the same code.
import FuzzReplay
import RelayWire

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrames(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // Whatever decodes must re-encode to a frame that decodes to the same value.
    if let frame = try? RelayFrame.decode(bytes), frame.isKnown {
        guard let again = try? RelayFrame.decode(frame.encode()), again == frame else { fatalError("frame round trip differs") }
    }
    // The incremental parser, fed in two uneven pieces, must never crash.
    var parser = FrameParser()
    let cut = size == 0 ? 0 : Int(bytes[0]) % (size + 1)
    var action = parser.parse(bytes[..<cut])
    while case .frame = action { action = parser.next() }
    action = parser.parse(bytes[cut...])
    while case .frame = action { action = parser.next() }
    return 0
}

extension RelayFrame {
    var isKnown: Bool { if case .unknown = self { false } else { true } }
}

#if !FUZZING
@main struct Replay {
    static func main() throws { try replayFiles(CommandLine.arguments.dropFirst(), through: fuzzFrames) }
}
#endif
