@testable import Courier
import Sealing
import Testing
import Wire

/// A part adds 25 bytes (its type byte included) to its piece: the largest piece that still
/// fits the largest one-frame body is 32,683 bytes (SPEC 4 "Parts", 5 "Envelope").
@Test func theLargestPartFillsOneFrameExactly() throws {
    #expect(Courier.maxBodyPerFrame == 32_708)
    #expect(Courier.maxPartPayload == 32_683)
    let part = AppMessage.part(.init(messageID: .repeating(1), index: 0, count: 2, totalLength: 65_366,
                                     bytes: [UInt8](repeating: 0, count: Courier.maxPartPayload)))
    #expect(try part.encode().count == Courier.maxBodyPerFrame)
}
