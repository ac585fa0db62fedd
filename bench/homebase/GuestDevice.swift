// The far end: a sibling device with its own identity, relay link and Courier, sending the
// sealed requests a guest sends and reading the replies.
import Basics
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
    var recordHex: String { hexString(identity.record.encoded) }

    init(relayURL: String, hostRecordHex: String) throws {
        guard let bytes = Basics.bytes(fromHex: hostRecordHex), let host = try? DeviceRecord(encoded: bytes) else {
            throw BenchError("homebase init printed a record that does not parse")
        }
        self.host = host
        identity = try DeviceIdentity.generate(name: "bench-laptop", now: UInt64(wallClockMs()))
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
    /// completion tokens; the time until the relay confirmed the request (`sendRequest` returned);
    /// and the send and the first chunk on the uptime clock of the agent's chunk probe.
    func ask(tokens: Int) async throws -> Answer {
        let request = Self.request(tokens: tokens)
        let start = ContinuousClock.now, startNs = DispatchTime.now().uptimeNanoseconds
        let (_, replies) = await courier.sendRequest(request, to: host)
        let confirmed = ContinuousClock.now
        // A bound, not a measure: a lost answer ends the bench instead of hanging it.
        let guardTask = Task { try await Task.sleep(for: .seconds(60)); replies.cancel() }
        defer { guardTask.cancel() }
        var first: ContinuousClock.Instant?, accepted: ContinuousClock.Instant?, firstNs: UInt64 = 0
        for await reply in replies {
            switch reply {
            case .message(.accept): accepted = .now
            case .chunk(let data, _) where !data.isEmpty:
                if first == nil { first = .now; firstNs = DispatchTime.now().uptimeNanoseconds }
            case .message(.done(let d)):
                let end = ContinuousClock.now, endNs = DispatchTime.now().uptimeNanoseconds
                return Answer(ttft: ms((first ?? end) - start), total: ms(end - start), completion: Int(d.completionTokens),
                              accept: ms((accepted ?? end) - start), confirmed: ms(confirmed - start),
                              startNs: startNs, firstNs: firstNs, doneNs: endNs)
            case .message(.error(let e)): throw BenchError("the Homebase answered error \(e.code): \(e.message)")
            case .streamFailure(let e): throw BenchError("stream failure: \(e)")
            default: continue
            }
        }
        throw BenchError("the answer ended without done (relay.log says whether the relay closed a link)")
    }
}

extension GuestDevice {
    /// The request each relayed answer sends (fresh ids each time).
    static func request(tokens: Int) -> AppMessage.Request {
        AppMessage.Request(
            requestID: Bytes16(unchecked: (0..<16).map { _ in UInt8.random(in: 0...255) }), model: "tiny",
            conversationID: Bytes16(unchecked: (0..<16).map { _ in UInt8.random(in: 0...255) }), prefixHash: .zero,
            messages: [.init(role: .user, content: "Go")], inline: true, maxTokens: UInt32(tokens), temperaturePerMille: 0)
    }
}

struct Answer {
    var ttft, total: Double
    var completion: Int
    var accept, confirmed: Double
    var startNs, firstNs: UInt64
    /// `done` opened at the guest, on the uptime clock.
    var doneNs: UInt64 = 0
}

final class HostOnly: DeviceDirectory {
    let host: DeviceRecord
    init(_ h: DeviceRecord) { host = h }
    func record(for key: PublicKey) -> DeviceRecord? { key == host.signingKey ? host : nil }
}
