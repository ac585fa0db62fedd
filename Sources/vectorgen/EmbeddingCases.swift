// Vectors for `embed-request` (0x50) and `embed-result` (0x51); layouts in
// Sources/Wire/EmbeddingMessages.swift, SPEC.md "Embeddings through the relay". Fields written
// by hand from the inputs, like WireCases.swift; floats as their big-endian binary32 bits.
import Basics
import Wire

private func h32(_ v: UInt32) -> String { hexString((0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) }) }
private func hs(_ s: String) -> String { hexString(Array(s.utf8)) }

func embeddingVectorCases() -> [VectorCase] {
    let rid = Bytes16.repeating(0x5E)
    let inputs = ["hello", "", "Grüß dich"]
    let request = AppMessage.embedRequest(.init(requestID: rid, model: "nomic-embed-text", inputs: inputs))
    let vectors: [[Float]] = [[1.0, -0.5, 0.25], [0, -0.0, 3.4028235e38]]
    let result = AppMessage.embedResult(.init(requestID: rid, model: "nomic-embed-text", promptTokens: 7, vectors: vectors))
    let prefix = [0x51] + rid.bytes + [0, 1] + Array("m".utf8) + [0, 0, 0, 0]  // type, id, model "m", 0 tokens
    return [
        VectorCase(name: "msg-embed-request", kind: "app-message", expect: "success",
                   comment: "three inputs, one of them empty",
                   fields: [("type", "50"), ("request-id", rid.hex), ("model", hs("nomic-embed-text"))]
                       + inputs.enumerated().map { ("input.\($0.offset)", hs($0.element)) },
                   payload: try! request.encode()),
        VectorCase(name: "msg-embed-result", kind: "app-message", expect: "success",
                   comment: "two vectors of three dimensions (negative zero and the largest float kept bit for bit)",
                   fields: [("type", "51"), ("request-id", rid.hex), ("model", hs("nomic-embed-text")),
                            ("prompt-tokens", h32(7)), ("dimensions", h32(3))]
                       + vectors.enumerated().map { ("vector.\($0.offset)", $0.element.map { h32($0.bitPattern) }.joined()) },
                   payload: try! result.encode()),
        VectorCase(name: "msg-embed-request-no-inputs", kind: "app-message", expect: "invalid value",
                   comment: "an embed-request with zero inputs",
                   payload: [0x50] + rid.bytes + [0, 1] + Array("m".utf8) + [0, 0]),
        VectorCase(name: "msg-embed-result-short", kind: "app-message", expect: "truncated",
                   comment: "one vector of two dimensions carrying only one float",
                   payload: prefix + [0, 1] + [0, 0, 0, 2] + [0x3F, 0x80, 0, 0]),
        VectorCase(name: "msg-embed-result-trailing", kind: "app-message", expect: "trailing bytes",
                   comment: "one vector of one dimension followed by one byte more",
                   payload: prefix + [0, 1] + [0, 0, 0, 1] + [0x3F, 0x80, 0, 0, 0]),
        VectorCase(name: "msg-embed-result-nan", kind: "app-message", expect: "invalid value",
                   comment: "a value that is not finite (NaN)",
                   payload: prefix + [0, 1] + [0, 0, 0, 1] + [0x7F, 0xC0, 0, 0]),
        VectorCase(name: "msg-embed-result-oversize", kind: "app-message", expect: "oversize",
                   comment: "2048 vectors of 2049 dimensions: above the 16 MiB bound, refused before reading",
                   payload: prefix + [0x08, 0x00] + [0, 0, 0x08, 0x01] + [0x3F, 0x80, 0, 0]),
    ]
}
