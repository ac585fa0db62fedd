// The far end: a sibling device with its own identity, relay link and Courier, sending the
// sealed requests a guest sends and reading the replies.
import BenchSupport
import Courier
import Foundation
import PeerLink
import Sealing
import Signing
import Wire

final class GuestDevice: Sendable {
    let identity: DeviceIdentity
    let courier: Courier
    let host: DeviceRecord
    var recordHex: String { hex(identity.record.encoded) }

    init(relayURL: String, hostRecordHex: String) throws {
        guard let bytes = unhex(hostRecordHex), let host = try? DeviceRecord(encoded: bytes) else {
            throw BenchError("homebase init printed a record that does not parse")
        }
        self.host = host
        identity = try DeviceIdentity.generate(name: "bench-laptop", now: UInt64(Date().timeIntervalSince1970 * 1000))
        courier = Courier(link: try PeerLink(configuration: try PeerLink.Configuration(relayURL: relayURL), identity: identity.signingKey),
                          identity: identity, directory: HostOnly(host))
    }

    func start() async throws {
        let c = courier
        Task { for await d in c.deliveries { d.ack() } }  // adverts and the roster: read and acked
        courier.start()
        let deadline = ContinuousClock.now + .seconds(30)
        while !courier.link.state.isConnected {
            guard ContinuousClock.now < deadline else { throw BenchError("the guest device did not connect") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    func stop() { courier.stop() }

    /// One answer through the Homebase: time to the first chunk, to `done` and to `accept`; the
    /// completion tokens; and the time until the relay confirmed the request (`sendRequest` returned).
    func ask(tokens: Int) async throws -> (ttft: Double, total: Double, completion: Int, accept: Double, confirmed: Double) {
        let request = AppMessage.Request(
            requestID: Bytes16(unchecked: (0..<16).map { _ in UInt8.random(in: 0...255) }), model: "tiny",
            conversationID: Bytes16(unchecked: (0..<16).map { _ in UInt8.random(in: 0...255) }), prefixHash: .zero,
            messages: [.init(role: .user, content: "Go")], inline: true, maxTokens: UInt32(tokens), temperaturePerMille: 0)
        let start = ContinuousClock.now
        let (_, replies) = await courier.sendRequest(request, to: host)
        let confirmed = ContinuousClock.now
        // A bound, not a measure: a lost answer ends the bench instead of hanging it.
        let guardTask = Task { try await Task.sleep(for: .seconds(60)); replies.cancel() }
        defer { guardTask.cancel() }
        var first: ContinuousClock.Instant?, accepted: ContinuousClock.Instant?
        for await reply in replies {
            switch reply {
            case .message(.accept): accepted = .now
            case .chunk(let data, _) where !data.isEmpty: if first == nil { first = .now }
            case .message(.done(let d)):
                let end = ContinuousClock.now
                return (ms((first ?? end) - start), ms(end - start), Int(d.completionTokens), ms((accepted ?? end) - start),
                        ms(confirmed - start))
            case .message(.error(let e)): throw BenchError("the Homebase answered error \(e.code): \(e.message)")
            case .streamFailure(let e): throw BenchError("stream failure: \(e)")
            default: continue
            }
        }
        throw BenchError("the answer ended without done (relay.log says whether the relay closed a link)")
    }
}

final class HostOnly: DeviceDirectory {
    let host: DeviceRecord
    init(_ h: DeviceRecord) { host = h }
    func record(for key: PublicKey) -> DeviceRecord? { key == host.signingKey ? host : nil }
}
