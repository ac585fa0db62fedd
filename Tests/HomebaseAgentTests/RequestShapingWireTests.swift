import Courier
import Testing
import Wire
@testable import HomebaseAgent

/// What a capture in front of a real relay sees of one request under each `request.shaping`
/// level (the guest's side of #22), and that the real Homebase answers it: the frames the guest
/// sent up have only the promised sizes. Sizes are WebSocket messages: a `send` frame's 60
/// bytes of header around the sealed envelope.
struct RequestShapingWireTests {
    /// The relay frame around a live envelope of `sealed` bytes, as the capture counts it.
    static func onWire(_ sealed: Int) throws -> Int {
        try RelayFrame.send(.init(recipient: .zero, deliveryClass: .live, frameID: .zero, ttlSeconds: 0, collapseKey: [],
                                  sealed: [UInt8](repeating: 0, count: sealed))).encode().count
    }

    /// The guest's frames at least as large as the smallest envelope a request can take (the
    /// link's own control frames are far smaller: auth, pings).
    func requestFrames(_ shaping: RequestShaping, text: String) async throws -> (answer: Answer, sizes: [Int]) {
        let r = try await RelayCapture.run(.off, requestShaping: shaping, request: request("scripted", text))
        let floor = try Self.onWire(305)
        return (r.answer, r.guestUp.filter { $0 >= floor })
    }

    @Test(arguments: [RequestShaping.padded, .cadence])
    func aShortRequestShowsOnlyTheFloor(_ shaping: RequestShaping) async throws {
        let (answer, sizes) = try await requestFrames(shaping, text: "Say hello")
        #expect(answer.done != nil && !answer.text.isEmpty)
        let size = shaping == .padded ? 2_097 : 4_145
        #expect(sizes == [try Self.onWire(size)], "guest frames up \(sizes)")
    }

    /// 70 KB of prompt (padded): 3 parts of 32 KiB and one padding frame; 10 KB (cadence): 3
    /// parts of 4 KiB and one padding frame. A power of two of one size, and the Homebase answers.
    @Test(arguments: [(RequestShaping.padded, 70_000, 32_817), (.cadence, 10_000, 4_145)])
    func aLongRequestIsAPowerOfTwoOfOneSize(_ shaping: RequestShaping, bytes: Int, size: Int) async throws {
        let (answer, sizes) = try await requestFrames(shaping, text: String(repeating: "a long prompt ", count: bytes / 14))
        #expect(answer.done != nil && !answer.text.isEmpty, "the Homebase answered the shaped request")
        #expect(sizes == Array(repeating: try Self.onWire(size), count: 4), "guest frames up \(sizes)")
    }

    @Test func unshapedShowsTheSize() async throws {
        // The control: today's frames (still accepted) show the last part's bucket.
        let (answer, sizes) = try await requestFrames(.off, text: String(repeating: "a long prompt ", count: 5_000))
        #expect(answer.done != nil && !answer.text.isEmpty)
        #expect(sizes.count == 3 && Set(sizes).count == 2, "guest frames up \(sizes)")
    }
}
