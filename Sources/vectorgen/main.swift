// vectorgen: writes protocol/vectors/*.txt from the generators beside this file.
// Run with `make vectors`; the files are committed and checked by Tests/VectorTests.
import Foundation

let outDir = CommandLine.arguments.dropFirst().first ?? "protocol/vectors"
let cases = wireVectorCases() + sealingVectorCases() + recordVectorCases() + derivationVectorCases() + pairingVectorCases()
var seen = Set<String>()
for c in cases {
    precondition(seen.insert(c.name).inserted, "duplicate vector name \(c.name)")
    let url = URL(fileURLWithPath: outDir).appendingPathComponent(c.name + ".txt")
    try c.render().write(to: url, atomically: true, encoding: .utf8)
}
print("vectorgen: wrote \(cases.count) files to \(outDir)")
