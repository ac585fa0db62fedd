@testable import Courier
import Foundation
import PeerLink
import Sealing
import Signing
import Testing
import Wire
import Basics

/// The request ladder (`RequestShaping.plan`): pure, every size the relay may see of a request.
@Suite("request shaping: the ladder")
struct RequestLadderTests {
    let max = Courier.maxBodyPerFrame  // 32,708: the 32768 bucket

    @Test func offIsTodaysSmallestBucketAndLargestParts() {
        #expect(RequestShaping.off.plan(encodedCount: 100, maxBody: max) == .init(partPayload: nil, bucket: 0, paddingFrames: 0))
        #expect(RequestShaping.off.plan(encodedCount: 70_000, maxBody: max) == .init(partPayload: 32_683, bucket: 0, paddingFrames: 0))
    }

    @Test func paddedFloorsOneFrameAndRoundsPartsToAPowerOfTwo() {
        #expect(RequestShaping.padded.plan(encodedCount: 1, maxBody: max) == .init(partPayload: nil, bucket: 2048, paddingFrames: 0))
        // Over the floor: the floor stays a minimum, the envelope takes the bucket that holds it.
        #expect(RequestShaping.padded.plan(encodedCount: 5_000, maxBody: max) == .init(partPayload: nil, bucket: 2048, paddingFrames: 0))
        #expect(RequestShaping.padded.plan(encodedCount: max, maxBody: max).partPayload == nil)
        // One byte over one frame: 2 parts of the largest bucket. 3 parts: 1 padding frame; 5: 3.
        let cases = [(max + 1, 2, 0), (3 * 32_683, 3, 1), (3 * 32_683 + 1, 4, 0), (4 * 32_683 + 1, 5, 3), (100 * 32_683, 100, 28)]
        for (count, parts, padding) in cases {
            let p = RequestShaping.padded.plan(encodedCount: count, maxBody: max)
            #expect(p == .init(partPayload: 32_683, bucket: 32_768, paddingFrames: padding), "\(count) bytes")
            #expect((count + 32_682) / 32_683 == parts)
        }
    }

    @Test func cadenceIsOneFrameSizeAndAPowerOfTwoOfFrames() {
        #expect(RequestShaping.cadence.plan(encodedCount: 10, maxBody: max) == .init(partPayload: nil, bucket: 4096, paddingFrames: 0))
        #expect(RequestShaping.cadence.plan(encodedCount: 4036, maxBody: max).partPayload == nil)
        // 4,037 bytes: two parts of 4,011 (a part adds 25 bytes: 4,036 fills the bucket).
        #expect(RequestShaping.cadence.plan(encodedCount: 4037, maxBody: max) == .init(partPayload: 4011, bucket: 4096, paddingFrames: 0))
        #expect(RequestShaping.cadence.plan(encodedCount: 3 * 4011, maxBody: max).paddingFrames == 1)
        #expect(RequestShaping.cadence.plan(encodedCount: 9 * 4011, maxBody: max).paddingFrames == 7)
        #expect(Envelope.bodyRoom(bucket: 4096) - Limits.partOverhead == 4011)
        // Past 16 frames of 4 KiB (an image): the largest bucket, a power of two of frames.
        #expect(RequestShaping.cadence.plan(encodedCount: 16 * 4011, maxBody: max).paddingFrames == 0)
        #expect(RequestShaping.cadence.plan(encodedCount: 16 * 4011 + 1, maxBody: max)
            == .init(partPayload: 32_683, bucket: 32_768, paddingFrames: 0))
        #expect(RequestShaping.cadence.plan(encodedCount: 70_000, maxBody: max)
            == .init(partPayload: 32_683, bucket: 32_768, paddingFrames: 1))
    }
}

/// What `seal` makes of a request under each level: the exact envelope sizes, padding first,
/// and that the recipient opens every frame (the padding as a type it skips).
@Suite("request shaping: the sealed frames")
struct RequestFramesTests {
    func frames(_ level: RequestShaping, textBytes: Int) throws -> (sizes: [Int], bodies: [AppMessage]) {
        let guest = try identity("guest"), host = try identity("host")
        let courier = Courier(link: try PeerLink(configuration: .init(relayURL: "ws://127.0.0.1:9/v1/connect"), identity: guest.signingKey),
                              identity: guest, directory: FixedDirectory([host.record]))
        let sealed = try courier.seal(.request(request(1, text: String(repeating: "x", count: textBytes))), to: host.record,
                                      shaping: level)
        var replay = ReplayGuard(capacity: 64)
        let bodies = try sealed.map {
            try AppMessage.decode(Envelope.open($0.bytes, by: host, from: guest.record, replay: &replay,
                                             now: UInt64(wallClockMs())).body)
        }
        return (sealed.map(\.bytes.count), bodies)
    }

    func isPadding(_ m: AppMessage) -> Bool { m == .unknown(type: AppMessage.paddingType) }

    @Test func aShortPaddedRequestIsOneFrameOf2097Bytes() throws {
        let (sizes, bodies) = try frames(.padded, textBytes: 10)
        #expect(sizes == [2_097])
        #expect(bodies.count == 1 && !isPadding(bodies[0]))
        #expect(try frames(.off, textBytes: 10).sizes == [305])  // unshaped: the smallest bucket
    }

    @Test func aLongPaddedRequestIsAPowerOfTwoOfFullFramesPaddingFirst() throws {
        let (sizes, bodies) = try frames(.padded, textBytes: 70_000)  // 3 parts
        #expect(sizes == [32_817, 32_817, 32_817, 32_817])
        #expect(isPadding(bodies[0]))
        #expect(bodies[1...].allSatisfy { if case .part = $0 { true } else { false } })
        let off = try frames(.off, textBytes: 70_000).sizes
        #expect(off.count == 3 && off.last! < 32_817)  // unshaped: the last part shows the size
    }

    @Test func cadenceRequestsAreAllOneSize() throws {
        let (sizes, bodies) = try frames(.cadence, textBytes: 10_000)  // 3 parts of 4,011
        #expect(sizes == [4_145, 4_145, 4_145, 4_145])
        #expect(isPadding(bodies[0]) && !bodies[1...].contains(where: isPadding))
        #expect(try frames(.cadence, textBytes: 10).sizes == [4_145])
    }
}

/// Through a real relay: a padded request reaches a host that is not told about shaping, as
/// the request alone (the padding frames skipped), and its reply stream works.
@Suite("request shaping: delivered")
struct RequestShapingDeliveryTests {
    @Test(arguments: [RequestShaping.padded, .cadence])
    func aShapedLongRequestArrivesWholeAndIsAnswered(_ level: RequestShaping) async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let gi = try identity("guest"), hi = try identity("host")
        let guest = try Device(gi, knows: [hi.record], relay: relay, loop: loop) { $0.requestShaping = level }
        let host = try Device(hi, knows: [gi.record], relay: relay, loop: loop)
        try await guest.start()
        try await host.start()
        let long = String(repeating: "long prompt ", count: 6_000)  // 72 KB: 3 parts and a padding frame
        let (outcome, stream) = await guest.courier.sendRequest(request(7, text: long), to: host.record)
        #expect(outcome == .sent)
        let w = try await writer(on: host, for: id16(7))
        #expect(host.deliveries.count == 1)  // the padding frames delivered nothing
        guard case .request(let got) = host.deliveries[0].message else { Issue.record("not a request"); return }
        #expect(got.messages.first?.content == long)
        #expect(w.streamID == stream.streamID)
        #expect(await w.accept() == .sent)
        #expect(await w.chunk(text: "ok") == .sent)
        #expect(await w.finish(done: done(id16(7))) == .sent)
        #expect(text(of: try await collect(stream)) == "ok")
    }
}
