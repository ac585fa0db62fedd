@testable import Courier
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
