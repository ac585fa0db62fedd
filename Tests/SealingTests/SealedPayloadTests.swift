import Testing
import Signing
@testable import Sealing

@Test func sealedPayloadTellsEnvelopesFromChunks() throws {
    let secret = SecretBytes(Array(repeating: 7, count: 32))
    let sealer = try StreamSealer(secret: secret)
    let opener = try StreamOpener(secret: secret)
    let id = MessageID.random()
    let framed = SealedPayload.streamChunkBytes(streamID: id, chunk: try sealer.seal(Array("tok".utf8), final: true))
    guard case .streamChunk(let got, let chunk)? = SealedPayload.classify(framed) else {
        Issue.record("a framed chunk must classify as a stream chunk"); return
    }
    #expect(got == id)
    let opened = try opener.open(chunk)
    #expect(opened.data == Array("tok".utf8) && opened.isFinal)

    #expect(SealedPayload.classify([0x01, 9, 9]) == .envelope([0x01, 9, 9]))
    #expect(SealedPayload.classify([]) == nil)
    #expect(SealedPayload.classify([0x03, 1]) == .introduction([0x03, 1]))
    #expect(SealedPayload.classify([0x04, 1]) == nil)
    #expect(SealedPayload.classify([0x02] + Array(repeating: 0, count: 16)) == nil, "a chunk needs bytes after its id")
}
