// bench-foundation: the cost of sealing and of the relay codecs, beside raw libsodium.
// Run: make bench (swift run -c release bench-foundation [--runs N] [--target-ms MS] [--only TEXT]).

@main struct BenchFoundation {
    static func main() throws {
        let s = Settings(arguments: Array(CommandLine.arguments.dropFirst()))
        print("# bench-foundation")
        print("")
        print("command: swift run -c release bench-foundation \(CommandLine.arguments.dropFirst().joined(separator: " "))")
        print("machine: \(Machine.cores) cores (nproc), \(Machine.cpuModel), Linux \(Machine.kernel), libsodium \(Machine.libsodium)")
        print("load average at start: \(Machine.loadAverage)")
        print("method: median of \(s.runs) runs of N iterations (N calibrated to ~\(Int(s.targetMs)) ms per run), min-max across runs")
        print("")
        print("| case | bytes | N | ops/s | ns/op (median) | ns/op (min-max) | MB/s |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        let results: [() throws -> Result?] = [
            { try CryptoCases.streamChunk(s) },
            { try CryptoCases.rawAEAD(size: 64, s) },
            { try CryptoCases.rawAEAD(size: 128, s) },
            { try CryptoCases.envelope(bodyBytes: 16 * 1024, s) },
            { try CryptoCases.envelope(bodyBytes: 0, s) },
            { try CryptoCases.rawX25519(base: false, s) },
            { try CryptoCases.rawX25519(base: true, s) },
            { try CryptoCases.rawAEAD(size: 16 * 1024, s) },
            { try CryptoCases.rawAEAD(size: 32 * 1024, s) },
            { try WireCases.encode(sealed: 16 * 1024, s) },
            { try WireCases.decode(sealed: 16 * 1024, s) },
            { try WireCases.encode(sealed: 256, s) },
            { try WireCases.decode(sealed: 256, s) },
            { try WireCases.parser(s) },
        ]
        for make in results { if let result = try make() { row(result) } }
        print("")
        print("load average at end: \(Machine.loadAverage)")
    }

    static func row(_ r: Result) {
        let sorted = r.nsPerOp.sorted()
        print("| \(r.name) | \(r.bytes) | \(r.iterations) | \(fmt(r.opsPerSecond, 0)) | \(fmt(r.median, 1)) "
              + "| \(fmt(sorted.first!, 1))-\(fmt(sorted.last!, 1)) | \(fmt(r.megabytesPerSecond, 1)) |")
    }

    /// Fixed-point with `digits` decimals and thousands separators for the integer part.
    static func fmt(_ value: Double, _ digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (value * scale).rounded()
        let whole = Int(scaled / scale)
        var text = String(whole)
        var i = text.count - 3
        while i > 0 { text.insert(",", at: text.index(text.startIndex, offsetBy: i)); i -= 3 }
        guard digits > 0 else { return text }
        let fraction = Int(scaled) - whole * Int(scale)
        let f = String(fraction)
        return text + "." + String(repeating: "0", count: digits - f.count) + f
    }
}
