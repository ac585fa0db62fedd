import Basics
import PeerLink
import Sealing
import Signing
import Synchronization
import Wire

extension Courier {
    /// Seals `message` to `recipient` and sends it live (split into parts if its body exceeds
    /// `maxBodyPerFrame`). The outcome of a split message is the first part's that is not
    /// `.sent`, else `.sent`. A message that cannot be encoded or sealed is `.failed(.tooLarge)`.
    public func send(_ message: AppMessage, to recipient: DeviceRecord) async -> LiveOutcome {
        let sealed: [SealedMessage]
        do { sealed = try seal(message, to: recipient) } catch { return .failed(error.asLinkError) }
        return await sendLive(sealed.map(\.bytes), to: recipient.signingKey)
    }

    /// Seals `message` and sends it as mail: returns once the relay stored every frame (or one
    /// found the mailbox full: later parts are then not sent). A split message sends each part
    /// with its own collapse key (`collapseKey` cut to 62 bytes, then the part index as u16), so
    /// a newer message with the same key replaces the older one part by part.
    /// `ttl` is cut to `maxMailTTL`. Throws `CourierError` (`.encoding`, `.sealing`, `.link`, `.cancelled`).
    public func sendMail(_ message: AppMessage, to recipient: DeviceRecord, ttl: Duration,
                         collapseKey: [UInt8] = []) async throws(CourierError) -> MailOutcome {
        let ttl = min(ttl, Self.maxMailTTL)
        let sealed = try seal(message, to: recipient)
        for (i, envelope) in sealed.enumerated() {
            var key = collapseKey
            if sealed.count > 1 && !key.isEmpty {
                key = Array(key.prefix(Limits.maxCollapseKey - 2)) + [UInt8(i >> 8), UInt8(i & 0xFF)]
            }
            let outcome: MailOutcome
            do {
                outcome = try await link.sendMail(to: recipient.signingKey, payload: envelope.bytes, ttl: ttl, collapseKey: key)
            } catch let e as PeerLinkError {
                throw .link(e)
            } catch {
                throw .cancelled
            }
            if outcome == .mailboxFull { return .mailboxFull }
        }
        return .stored
    }

    /// Sends a request live and registers its reply stream under the request envelope's message
    /// id (for a split request: the envelope of its last part), opened with that envelope's
    /// stream secret. Replies from `host` for `request.requestID` go to the returned stream only.
    /// The stream is already finished when the outcome says the request surely did not arrive
    /// (everything but `.sent` and `.failed(.timeout)`). A request that cannot be sealed is
    /// `.failed` with the link's words for it; `sendAwaitingReplies` throws it typed instead.
    public func sendRequest(_ request: AppMessage.Request, to host: DeviceRecord) async -> (LiveOutcome, ReplyStream) {
        await sendFlattened(.request(request), requestID: request.requestID, to: host)
    }

    /// `message` (a request of some kind, for `requestID`) sealed and sent live with its reply
    /// stream registered: what `sendRequest`, `sendEmbedRequest` and `sendManageRequest` share.
    /// Throws what kept it from being sealed (nothing was sent then), so the caller can tell a
    /// local failure from the link's (`RelayRouting.HostRequest`, the fallback's `notSealed`).
    public func sendAwaitingReplies(_ message: AppMessage, requestID: Bytes16,
                                    to host: DeviceRecord) async throws(CourierError) -> (LiveOutcome, ReplyStream) {
        let sealed = try seal(message, to: host, shaping: configuration.requestShaping)
        let last = sealed[sealed.count - 1]  // the message's own last frame: padding goes first
        let stream: ReplyStream
        do {
            stream = try replies.register(streamID: last.messageID, requestID: requestID,
                                          host: host.signingKey, secret: last.streamSecret)
        } catch {
            throw .sealing(error as? SealingError ?? .invalidKey)  // a stream secret that forms no opener
        }
        // Confirmed on the link's thread as the outcome arrives, in order with `peer-gone`.
        let registry = replies, id = stream.streamID
        let outcome = await sendLive(sealed.map(\.bytes), to: host.signingKey) { outcome in
            if outcome == .sent || outcome == .failed(.timeout) { registry.confirm(id) }
        }
        switch outcome {
        case .sent, .failed(.timeout): break
        default: replies.remove(stream.streamID, cancelled: false)
        }
        return (outcome, stream)
    }

    /// `sendAwaitingReplies` with a sealing failure flattened into the outcome (and a finished stream).
    func sendFlattened(_ message: AppMessage, requestID: Bytes16, to host: DeviceRecord) async -> (LiveOutcome, ReplyStream) {
        do {
            return try await sendAwaitingReplies(message, requestID: requestID, to: host)
        } catch {
            let (dead, sink) = AsyncStream.makeStream(of: Reply.self)
            sink.finish()
            return (.failed(error.asLinkError), ReplyStream(streamID: MessageID.random(), requestID: requestID, replies: dead, unregister: {}))
        }
    }

    /// The envelopes for one message: one, or one per part, after the `padding` frames `shaping`
    /// asks for (first, so a reply to the message follows them all: SPEC 7, "Request shaping").
    func seal(_ message: AppMessage, to recipient: DeviceRecord,
              shaping: RequestShaping = .off) throws(CourierError) -> [SealedMessage] {
        var encoded: [UInt8]
        do { encoded = try message.encode() } catch { throw .encoding(error) }
        defer { wipe(&encoded) }
        let plan = shaping.plan(encodedCount: encoded.count, maxBody: Self.maxBodyPerFrame)
        var out: [SealedMessage] = []
        out.reserveCapacity(plan.paddingFrames + 1)
        for _ in 0..<plan.paddingFrames {
            out.append(try sealBody([AppMessage.paddingType], to: recipient, bucket: plan.bucket))
        }
        guard let piece = plan.partPayload else { return out + [try sealBody(encoded, to: recipient, bucket: plan.bucket)] }
        let parts: [AppMessage.Part]
        do {
            parts = try Splitter(maxPartPayload: piece).split(encoded, messageID: Bytes16(unchecked: MessageID.random().bytes))
        } catch { throw .encoding(error) }
        for part in parts {
            var body: [UInt8]
            do throws(WireError) { body = try AppMessage.part(part).encode() } catch { throw .encoding(error) }
            defer { wipe(&body) }
            out.append(try sealBody(body, to: recipient, bucket: plan.bucket))
        }
        return out
    }

    private func sealBody(_ body: [UInt8], to recipient: DeviceRecord, bucket: Int) throws(CourierError) -> SealedMessage {
        do {
            return try Envelope.seal(body: body, from: identity, to: recipient, now: configuration.now(), bucket: bucket)
        } catch let e as SealingError {
            throw .sealing(e)
        } catch {
            throw .sealing(.openFailed)  // Envelope.seal throws only SealingError
        }
    }

    /// Seals `message` and hands its frame(s) to the link at once, without waiting for the
    /// relay's confirmation: the frames leave before any frame handed over later (the link keeps
    /// call order), and `then` (optional, on the link's thread: keep it short) hears the outcome
    /// as `send` would have returned it. False when it cannot be sealed: nothing was sent.
    @discardableResult
    public func post(_ message: AppMessage, to recipient: DeviceRecord,
                     then completion: (@Sendable (LiveOutcome) -> Void)? = nil) -> Bool {
        let sealed: [SealedMessage]
        do { sealed = try seal(message, to: recipient) } catch {
            completion?(.failed(error.asLinkError))
            return false
        }
        let done = completion ?? { _ in }
        let gather = OutcomeGather(count: sealed.count, done: done)
        for s in sealed { link.sendLive(to: recipient.signingKey, payload: s.bytes) { gather.add($0) } }
        return true
    }

    /// Sends frames live in order; one frame waits for its own outcome, several share the wait.
    /// `settled` (optional) hears the outcome first, on the link's thread.
    func sendLive(_ payloads: [[UInt8]], to key: PublicKey,
                  settled: (@Sendable (LiveOutcome) -> Void)? = nil) async -> LiveOutcome {
        if payloads.isEmpty { return .sent }
        guard payloads.count > 1 || settled != nil else { return await link.sendLive(to: key, payload: payloads[0]) }
        return await withCheckedContinuation { c in
            let gather = OutcomeGather(count: payloads.count) { outcome in
                settled?(outcome)
                c.resume(returning: outcome)
            }
            for p in payloads { link.sendLive(to: key, payload: p) { gather.add($0) } }
        }
    }
}

/// Waits for the outcomes of several live frames; reports the first that is not `.sent`.
final class OutcomeGather: Sendable {
    private let state: Mutex<(remaining: Int, worst: LiveOutcome)>
    private let done: @Sendable (LiveOutcome) -> Void

    init(count: Int, done: @escaping @Sendable (LiveOutcome) -> Void) {
        state = Mutex((count, .sent))
        self.done = done
    }

    func add(_ outcome: LiveOutcome) {
        let finished = state.withLock { s -> LiveOutcome? in
            if s.worst == .sent { s.worst = outcome }
            s.remaining -= 1
            return s.remaining == 0 ? s.worst : nil
        }
        if let finished { done(finished) }
    }
}

extension CourierError {
    /// How a local failure shows in a `LiveOutcome`.
    var asLinkError: PeerLinkError {
        switch self {
        case .encoding(.tooLarge(let f, let n, let l)): .tooLarge(field: f, length: n, limit: l)
        case .sealing(.tooLarge): .tooLarge(field: "message", length: 0, limit: Envelope.maxBodyBytes)
        case .link(let e): e
        case .stopped: .stopped
        default: .tooLarge(field: "message", length: 0, limit: 0)
        }
    }
}
