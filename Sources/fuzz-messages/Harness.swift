// libFuzzer target: application-message decoding and part reassembly.
// `make fuzz` builds it with -sanitize=fuzzer; a plain build replays saved inputs.
import FuzzReplay
import Wire

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMessages(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let message = try? AppMessage.decode(bytes) else { return 0 }
    if case .unknown = message { return 0 }
    guard let again = try? AppMessage.decode(message.encode()), again == message else { fatalError("message round trip differs") }
    if case .part(let part) = message {
        var reassembler = Reassembler(configuration: .init(maxMessageSize: 1 << 16, maxInFlight: 4, timeoutMs: 10))
        _ = try? reassembler.add(part, nowMs: 0)
        _ = try? reassembler.add(part, nowMs: 1)
        _ = reassembler.expire(nowMs: 100)
    }
    return 0
}

#if !FUZZING
@main struct Replay {
    static func main() throws { try replayFiles(CommandLine.arguments.dropFirst(), through: fuzzMessages) }
}
#endif
