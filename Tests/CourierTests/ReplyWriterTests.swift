@testable import Courier
import Sealing
import Testing

@Suite("cutting text into chunks")
struct PiecesTests {
    @Test func piecesNeverCutACharacterAndKeepEveryByte() {
        let text = String(repeating: "aé€😀", count: 50)
        let bytes = Array(text.utf8)
        for max in [1, 2, 3, 4, 5, 7, 16, 1000] {
            let pieces = ReplyWriter.pieces(of: bytes, max: max)
            #expect(pieces.joined().elementsEqual(bytes))
            #expect(pieces.allSatisfy { $0.count <= Swift.max(max, 4) && !$0.isEmpty })
            if max >= 4 { #expect(pieces.allSatisfy { String(validating: $0, as: UTF8.self) != nil }) }
        }
        #expect(ReplyWriter.pieces(of: [], max: 10).isEmpty)
    }
}

@Suite("the ledger of written streams")
struct StreamLedgerTests {
    @Test func claimsOnceAndForgetsOnlyBeyondCapacity() {
        var ledger = StreamLedger(capacity: 3)
        let ids = (0..<10).map { _ in MessageID.random() }
        var claims = [ledger.claim(ids[0]), ledger.claim(ids[0])]
        for id in ids[1...9] { claims.append(ledger.claim(id)) }
        claims += [ledger.claim(ids[9]), ledger.claim(ids[7])]  // still remembered
        claims.append(ledger.claim(ids[0]))  // long forgotten: bounded memory
        #expect(claims == [true, false] + Array(repeating: true, count: 9) + [false, false, true])
    }
}
