// vectorgen: writes protocol/vectors/*.txt from the generators beside this file.
// Run with `make vectors`; the files are committed and checked by Tests/VectorTests.
import Foundation

let outDir = CommandLine.arguments.dropFirst().first ?? "protocol/vectors"
let cases: [VectorCase]
do {
    cases = wireVectorCases() + (try sealingVectorCases()) + (try recordVectorCases()) + (try derivationVectorCases())
        + (try pairingVectorCases()) + peerGoneVectorCases() + (try inferenceV2Cases()) + embeddingVectorCases() + manageVectorCases()
} catch {
    FileHandle.standardError.write(Data("vectorgen: a generator failed, nothing written: \(error)\n".utf8))
    exit(1)
}
var seen = Set<String>()
for c in cases {
    precondition(seen.insert(c.name).inserted, "duplicate vector name \(c.name)")
    let url = URL(fileURLWithPath: outDir).appendingPathComponent(c.name + ".txt")
    try c.render().write(to: url, atomically: true, encoding: .utf8)
}
print("vectorgen: wrote \(cases.count) files to \(outDir)")
