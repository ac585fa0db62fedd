import Dispatch
import Signing
import Synchronization
import Transport
import Wire

/// A signing key the tests pass around (SigningKey is a final class; this names it briefly).
struct SigningKeyBox: Sendable {
    let key: SigningKey
    init() { key = SigningKey.generate() }
    var publicKey: Bytes32 { key.publicKey }
}

enum ClientEvent: Sendable, Equatable {
    case frame(RelayFrame)
    case malformed([UInt8])
    case closed(code: UInt16, reason: String)
}

/// A thread-safe queue of events the test waits on.
final class Inbox<T: Sendable>: Sendable {
    private let items = Mutex<[T]>([])
    private let count = DispatchSemaphore(value: 0)

    func put(_ item: T) { items.withLock { $0.append(item) }; count.signal() }

    func take(timeout: DispatchTimeInterval = hangGuard) throws -> T {
        guard count.wait(timeout: .now() + timeout) == .success else { throw TestSetupError("no event arrived") }
        return items.withLock { $0.removeFirst() }
    }
}

/// The minimal TEST client: Transport's WebSocket client, Wire frames, Signing for the challenge.
final class TestClient: @unchecked Sendable {
    let ws: WebSocket
    let events = Inbox<ClientEvent>()
    private(set) var challenge: RelayFrame.Challenge?
    private(set) var key: SigningKeyBox?

    private init(ws: WebSocket) { self.ws = ws }

    /// `from`: the local address (127.0.0.2 plays another machine on loopback).
    static func connect(loop: EventLoop, port: UInt16, from source: String? = nil) throws -> TestClient {
        let result = Inbox<Result<WebSocket, TransportError>>()
        var cfg = WebSocketClient.Configuration(host: "127.0.0.1", port: port)
        cfg.maxMessageSize = 4 * 1024 * 1024
        cfg.connection.sourceAddress = source
        WebSocketClient.connect(loop: loop, configuration: cfg) { r in
            if case .success(let ws) = r { TestClient.wire(ws) }
            result.put(r)
        }
        return try attached(try result.take().get())
    }

    /// The TestClient `wire` made for `ws`, once the relay's challenge has arrived.
    static func attached(_ ws: WebSocket) throws -> TestClient {
        let client = try TestClient.pending.withLock { p in
            guard let c = p.removeValue(forKey: ObjectIdentifier(ws)) else { throw TestSetupError("client not wired") }
            return c
        }
        guard case .challenge(let ch) = try client.next() else { throw TestSetupError("no challenge") }
        client.challenge = ch
        return client
    }

    private static let pending = Mutex<[ObjectIdentifier: TestClient]>([:])

    /// Runs on the client loop before any message can arrive.
    static func wire(_ ws: WebSocket) {
        let c = TestClient(ws: ws)
        ws.onMessage = { _, m in
            guard case .binary(let b) = m else { return }
            if let f = try? RelayFrame.decode(b) { c.events.put(.frame(f)) } else { c.events.put(.malformed(b)) }
        }
        ws.onClose = { _, code, reason in c.events.put(.closed(code: code.rawValue, reason: reason)) }
        pending.withLock { $0[ObjectIdentifier(ws)] = c }
    }

    /// The auth frame for this connection's challenge (signed over `origin`, or another nonce).
    func authFrame(key: SigningKeyBox, origin: String, nonce: Bytes32? = nil, token: [UInt8]? = nil,
                   account: SigningKeyBox? = nil) throws -> RelayFrame {
        let n = nonce ?? challenge!.nonce
        let transcript = try RelayAuth.transcript(origin: origin, challenge: n, deviceKey: key.publicKey)
        var proof: RelayFrame.AccountProof?
        if let account {
            proof = .init(accountKey: account.publicKey,
                          signature: Bytes64(account.key.sign(RelayAuth.accountBinding(deviceKey: key.publicKey)))!)
        }
        return .auth(.init(deviceKey: key.publicKey, signature: Bytes64(key.key.sign(transcript))!,
                           account: proof, admissionToken: token))
    }

    func authenticate(key: SigningKeyBox, origin: String, token: [UInt8]? = nil, account: SigningKeyBox? = nil) throws {
        self.key = key
        send(try authFrame(key: key, origin: origin, token: token, account: account))
    }

    func send(_ f: RelayFrame) { ws.send(binary: try! f.encode()) }
    func sendRaw(_ b: [UInt8]) { ws.send(binary: b) }

    /// The next event of any kind.
    func event(timeout: DispatchTimeInterval = hangGuard) throws -> ClientEvent { try events.take(timeout: timeout) }

    /// The next frame; a close or a malformed message is an error.
    func next() throws -> RelayFrame {
        switch try events.take() {
        case .frame(let f): return f
        case let e: throw TestSetupError("expected a frame, got \(e)")
        }
    }

    /// Reads until the connection closes; returns the frames seen before it and the close code.
    func untilClosed() throws -> (frames: [RelayFrame], code: UInt16) {
        var frames: [RelayFrame] = []
        while true {
            switch try events.take() {
            case .frame(let f): frames.append(f)
            case .malformed: continue
            case .closed(let code, _): return (frames, code)
            }
        }
    }

    func live(to: Bytes32, id: Bytes16, _ sealed: [UInt8]) {
        send(.send(.init(recipient: to, deliveryClass: .live, frameID: id, ttlSeconds: 0, sealed: sealed)))
    }

    func mail(to: Bytes32, id: Bytes16, ttl: UInt32 = 0, collapse: [UInt8] = [], _ sealed: [UInt8]) {
        send(.send(.init(recipient: to, deliveryClass: .mail, frameID: id, ttlSeconds: ttl, collapseKey: collapse, sealed: sealed)))
    }

    func close() { ws.close() }
}

/// A random frame id.
func frameID() -> Bytes16 {
    Bytes16((0..<16).map { _ in UInt8.random(in: 0...255) })!
}
