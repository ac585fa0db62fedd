import Basics
import Foundation
import Signing
import Wire

/// `<data-dir>/relay-proof`: the account's proof for this Homebase at the account's relay, as a
/// pairing (`homebase pair CODE`) brought it: `account key hex` then the proof's encoding in hex.
/// The holder of the account key needs none (it signs its own).
package struct RelayProofFile {
    package struct Stored: Sendable, Equatable {
        package var accountKey: Bytes32
        package var proof: AppMessage.RelayProof

        // Spelled out: the memberwise one is internal; `homebase pair -` (the executable) writes one.
        package init(accountKey: Bytes32, proof: AppMessage.RelayProof) {
            self.accountKey = accountKey; self.proof = proof
        }
    }

    let path: String

    package init(dataDir: String) { path = dataDir + "/relay-proof" }

    func read() -> Stored? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let words = text.split(whereSeparator: \.isWhitespace)
        guard words.count == 2, let key = bytes(fromHex: words[0]).flatMap(Bytes32.init),
              let bytes = bytes(fromHex: words[1]), let proof = try? AppMessage.RelayProof.decode(bytes) else { return nil }
        return Stored(accountKey: key, proof: proof)
    }

    package func write(_ s: Stored) throws {
        let line = s.accountKey.hex + " " + hexString(try s.proof.encode()) + "\n"
        try Data(line.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
