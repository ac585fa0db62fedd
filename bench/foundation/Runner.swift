// Timing: calibrate N so that one run lasts about `targetMs`, then time `runs` runs of N
// iterations and report the median run, with the fastest and slowest beside it.

/// How long and how often to measure (flags `--runs`, `--target-ms`).
struct Settings {
    var runs = 5
    var targetMs = 200.0
    /// Only the cases whose name contains this (all when nil).
    var only: String?

    init(arguments: [String]) {
        var it = arguments.makeIterator()
        while let flag = it.next() {
            switch flag {
            case "--runs": runs = it.next().flatMap(Int.init).map { max(1, $0) } ?? runs
            case "--target-ms": targetMs = it.next().flatMap(Double.init).map { max(1, $0) } ?? targetMs
            case "--only": only = it.next()
            default: fatalError("usage: bench-foundation [--runs N] [--target-ms MS] [--only TEXT]")
            }
        }
    }
}

/// One measured case: nanoseconds per operation of each run.
struct Result {
    let name: String
    let bytes: Int
    let iterations: Int
    let nsPerOp: [Double]

    var median: Double { nsPerOp.sorted()[nsPerOp.count / 2] }
    var opsPerSecond: Double { 1e9 / median }
    /// Payload throughput at the median, MB/s (10^6 bytes).
    var megabytesPerSecond: Double { Double(bytes) * opsPerSecond / 1e6 }
}

/// Times `op`, which performs `itemsPerCall` operations per call and returns a value derived
/// from its output (summed and kept, so the optimizer cannot drop the work).
func measure(_ name: String, bytes: Int, itemsPerCall: Int = 1, settings: Settings,
             _ op: () throws -> Int) throws -> Result? {
    if let only = settings.only, !name.contains(only) { return nil }
    var sink = 0
    func run(_ calls: Int) throws -> Double {
        let start = ContinuousClock.now
        for _ in 0..<calls { sink &+= try op() }
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
    }
    // Calibrate: double the calls until a run takes 20 ms, then scale to the target.
    var calls = 1
    var ns = try run(calls)
    while ns < 20e6 {
        calls *= 2
        ns = try run(calls)
    }
    calls = max(1, Int(Double(calls) * settings.targetMs * 1e6 / ns))
    var perOp: [Double] = []
    for _ in 0..<settings.runs { perOp.append(try run(calls) / Double(calls * itemsPerCall)) }
    if sink == 0x5eed_f00d { print("") }  // practically never: only keeps `sink` alive
    return Result(name: name, bytes: bytes, iterations: calls * itemsPerCall, nsPerOp: perOp)
}
