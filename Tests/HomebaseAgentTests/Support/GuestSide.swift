import Courier
import Foundation
import PeerLink
import Sealing
import Signing
import Synchronization
import Wire
import Basics

/// The far end for tests: a second device (its own identity, link and Courier) that talks to
/// the Homebase through the relay, as the guest will.
final class GuestSide: @unchecked Sendable {
    let identity: DeviceIdentity
    let courier: Courier
    let directory: StaticDirectory

    /// `requestShaping`: how its requests' frames are padded (the guest's `request.shaping`).
    init(relayURL: String, host: DeviceRecord, name: String = "laptop", requestShaping: RequestShaping = .off) throws {
        identity = try DeviceIdentity.generate(name: name, now: UInt64(wallClockMs()))
        directory = StaticDirectory([host])
        var link = try PeerLink.Configuration(relayURL: relayURL)
        link.backoff = .init(initial: .milliseconds(20), maximum: .milliseconds(200))
        var c = Courier.Configuration()
        c.requestShaping = requestShaping
        courier = Courier(link: try PeerLink(configuration: link, identity: identity.signingKey), identity: identity,
                          directory: directory, configuration: c)
    }

    func start() async throws {
        courier.start()
        try await eventually("guest link connected") { courier.link.state.isConnected }
    }

    func stop() { courier.stop() }

    /// Sends `request` and collects its replies until done/error (or the stream ends).
    func ask(_ request: AppMessage.Request, to host: DeviceRecord,
             onReply: (@Sendable (Reply) -> Void)? = nil) async -> (LiveOutcome, Answer) {
        let (outcome, stream) = await courier.sendRequest(request, to: host)
        var answer = Answer()
        for await reply in stream {
            onReply?(reply)
            answer.add(reply)
            if answer.ended { break }
        }
        return (outcome, answer)
    }
}

/// What came back for one request.
struct Answer: Sendable {
    var accepted = false
    var acceptBeforeText = true
    var text = ""
    var chunks = 0
    /// Empty, non-final chunks before any text: the host's keep-alives during the prefill.
    var keepAlivesBeforeText = 0
    var finalChunk = false
    var done: AppMessage.Done?
    var error: AppMessage.InferenceError?
    var failures: [SealingError] = []

    var ended: Bool { done != nil || error != nil }

    mutating func add(_ reply: Reply) {
        switch reply {
        case .message(.accept): accepted = true
        case .message(.done(let d)): done = d
        case .message(.error(let e)): error = e
        case .message: break
        case .chunk(let data, let isFinal):
            if !accepted { acceptBeforeText = false }
            chunks += 1
            if data.isEmpty, !isFinal, text.isEmpty { keepAlivesBeforeText += 1 }
            text += String(decoding: data, as: UTF8.self)
            if isFinal { finalChunk = true }
        case .streamFailure(let e): failures.append(e)
        case .hostGone: failures.append(.truncated)
        }
    }
}

/// A directory of fixed records.
final class StaticDirectory: DeviceDirectory {
    private let records: Mutex<[PublicKey: DeviceRecord]>
    init(_ list: [DeviceRecord]) { records = Mutex(Dictionary(uniqueKeysWithValues: list.map { ($0.signingKey, $0) })) }
    func record(for key: PublicKey) -> DeviceRecord? { records.withLock { $0[key] } }
}

/// A request for `model` with one user message (new conversation unless told).
func request(_ model: String, _ text: String = "Say hello", conversation: Bytes16 = .random(),
             prefix: Bytes32 = .zero, messages: [AppMessage.ChatMessage]? = nil, inline: Bool = false,
             maxTokens: UInt32 = 16) -> AppMessage.Request {
    AppMessage.Request(requestID: .random(), model: model, conversationID: conversation, prefixHash: prefix,
                       messages: messages ?? [.init(role: .user, content: text)], inline: inline,
                       maxTokens: maxTokens, temperaturePerMille: 0)
}

extension FixedBytes {
    static func random() -> Self { Self(unchecked: (0..<Self.count).map { _ in UInt8.random(in: 0...255) }) }
}
