import PeerLink
import Sealing
import Wire

extension Courier {
    /// Sends an `embed-request` live (split into parts when large) and registers its reply
    /// stream, as `sendRequest` does: `embed-result` or `error` from `host` for its request id
    /// goes to the returned stream only, and ends it. The stream is already finished when the
    /// outcome says the request surely did not arrive (everything but `.sent` and `.failed(.timeout)`).
    public func sendEmbedRequest(_ request: AppMessage.EmbedRequest, to host: DeviceRecord) async -> (LiveOutcome, ReplyStream) {
        let sealed: [SealedMessage]
        let stream: ReplyStream
        do {
            sealed = try seal(.embedRequest(request), to: host)
            let last = sealed[sealed.count - 1]
            stream = try replies.register(streamID: last.messageID, requestID: request.requestID,
                                          host: host.signingKey, secret: last.streamSecret)
        } catch {
            let (dead, sink) = AsyncStream.makeStream(of: Reply.self)
            sink.finish()
            let failed = ReplyStream(streamID: MessageID.random(), requestID: request.requestID, replies: dead, unregister: {})
            return (.failed((error as? CourierError)?.asLinkError ?? .tooLarge(field: "embed-request", length: 0, limit: 0)), failed)
        }
        let outcome = await sendLive(sealed.map(\.bytes), to: host.signingKey)
        switch outcome {
        case .sent, .failed(.timeout): break
        default: replies.remove(stream.streamID, cancelled: false)
        }
        return (outcome, stream)
    }
}
