// Replays saved fuzzer inputs (crash files, corpus entries) through a harness outside libFuzzer,
// so a crash can be reproduced and debugged with a plain build.
import Foundation

public typealias FuzzHarness = (UnsafePointer<UInt8>, Int) -> CInt

public func replayFiles(_ paths: some Sequence<String>, through harness: FuzzHarness) throws {
    var count = 0
    for path in paths {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        _ = bytes.withUnsafeBufferPointer { buf in
            harness(buf.baseAddress ?? UnsafePointer(bitPattern: 1)!, buf.count)
        }
        count += 1
    }
    print("replayed \(count) input(s) without a crash")
}
