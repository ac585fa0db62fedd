import Courier
import Sealing
import Signing
import Synchronization
import Transport
import Wire

/// TEST PEER: a Homebase played by a script, on the real relay (reached by either
/// `ProviderPath`): a second identity and Courier.
/// It records every request, `sync-delta` and `cancel` it receives, in order, and answers the
/// n-th request with the n-th behaviour (the last one repeats).
final class ScriptedHomebase: Sendable {
    enum Behaviour: Sendable {
        /// accept, one chunk per piece, final chunk and done.
        case answer([String])
        /// Never a word.
        case neverAccept
        /// accept, then nothing.
        case acceptThenSilence
        /// accept, these chunks, then nothing.
        case outputThenSilence([String])
        /// accept, these chunks, then the link to the relay is dropped for good.
        case outputThenOffline([String])
        /// accept, these chunks, then `done` without the final chunk (a truncated stream).
        case outputThenTruncatedDone([String])
        /// accept, then `error` with this code.
        case error(AppMessage.ErrorCode)
        /// accept, these typed events in one chunk (a version 2 request), final chunk and done.
        case events([ReplyEvent], finishReason: String)
    }

    let identity: DeviceIdentity
    let courier: Courier
    private let script: [Behaviour]
    private let log = Mutex<[AppMessage]>([])

    var record: DeviceRecord { identity.record }
    /// Every request, sync-delta and cancel received, in arrival order.
    var seen: [AppMessage] { log.withLock { $0 } }
    var requests: [AppMessage.Request] { seen.compactMap { if case .request(let r) = $0 { r } else { nil } } }
    var deltas: [AppMessage.SyncDelta] { seen.compactMap { if case .syncDelta(let d) = $0 { d } else { nil } } }
    var cancels: [Bytes16] { seen.compactMap { if case .cancel(let id) = $0 { id } else { nil } } }

    init(_ identity: DeviceIdentity, guest: DeviceRecord, relay: LiveRelay, loop: EventLoop, script: [Behaviour],
         via path: ProviderPath) throws {
        precondition(!script.isEmpty)
        self.identity = identity
        self.script = script
        courier = try makeCourier(identity, knows: [guest], relay: relay, loop: loop, via: path)
        let courier = courier
        Task { [self] in
            for await d in courier.deliveries {
                log.withLock { $0.append(d.message) }
                guard case .request = d.message, let writer = try? courier.replyWriter(for: d) else { continue }
                let n = requests.count - 1
                let behaviour = script[min(n, script.count - 1)]
                let typed = if case .request(let r) = d.message { r.version >= 2 } else { false }
                Task { await self.play(behaviour, writer, typed: typed) }
            }
        }
    }

    private func play(_ behaviour: Behaviour, _ w: ReplyWriter, typed: Bool) async {
        let id = w.requestID
        // A version 2 request reads the typed reply stream; version 1, raw text.
        let send: @Sendable (String) async -> Void = { p in
            if typed { _ = await w.chunk(events: (try? ReplyEvent.encode([.text(p)])) ?? []) } else { _ = await w.chunk(text: p) }
        }
        if case .neverAccept = behaviour { return }
        _ = await w.accept()
        switch behaviour {
        case .neverAccept, .acceptThenSilence:
            return
        case .answer(let pieces):
            for p in pieces { await send(p) }
            _ = await w.finish(done: .init(requestID: id, promptTokens: 7, completionTokens: UInt32(pieces.count),
                                           finishReason: "stop"))
        case .outputThenSilence(let pieces):
            for p in pieces { await send(p) }
        case .outputThenOffline(let pieces):
            for p in pieces { await send(p) }
            courier.stop()
        case .outputThenTruncatedDone(let pieces):
            for p in pieces { await send(p) }
            _ = await courier.send(.done(.init(requestID: id, promptTokens: 1, completionTokens: 1, finishReason: "stop")),
                                   to: w.requester)
        case .error(let code):
            _ = await w.fail(error: .init(requestID: id, code: code, message: "scripted \(code.rawValue)"))
        case .events(let events, let reason):
            _ = await w.chunk(events: (try? ReplyEvent.encode(events)) ?? [])
            _ = await w.finish(done: .init(requestID: id, promptTokens: 5, completionTokens: 6, finishReason: reason))
        }
    }
}

/// Avoids the clash with a local named `courier`.
func makeCourier(_ me: DeviceIdentity, knows: [DeviceRecord], relay: LiveRelay, loop: EventLoop,
                 via path: ProviderPath) throws -> Courier {
    try courier(me, knows: knows, relay: relay, loop: loop, via: path)
}
