import Foundation
import Inference
import Routing
import Signing
import Storage
import Synchronization
import TestKit
import Testing
import Wire

// Test doubles. Every type named Fake… exists for tests only.

/// A wall clock the test sets and moves.
final class FakeClock: WallClock {
    private let now: Mutex<Int64>
    init(_ start: Int64 = 1_800_000_000_000) { now = Mutex(start) }
    func nowMs() -> Int64 { now.withLock { $0 } }
    func advance(ms: Int64) { now.withLock { $0 += ms } }
}

struct FakeSettings: SettingsSource {
    var settings = RoutingSettings()
    var fails = false
    func routingSettings() throws -> RoutingSettings {
        if fails { throw FakeFailure.unreadable }
        return settings
    }
}

enum FakeFailure: Error { case unreadable }

struct FakeKeys: KeyRing {
    var present: Set<Cloud> = []
    var fails = false
    func hasKey(_ cloud: Cloud) throws -> Bool {
        if fails { throw FakeFailure.unreadable }
        return present.contains(cloud)
    }
    func key(_ cloud: Cloud) throws -> SecretBytes? {
        try hasKey(cloud) ? SecretBytes(Array("fake-\(cloud.rawValue)-key".utf8)) : nil
    }
}

struct FakeEndpoint: LocalEndpointSource {
    var endpoint: LocalEndpoint?
    var fails = false
    func verifiedEndpoint() throws -> LocalEndpoint? {
        if fails { throw FakeFailure.unreadable }
        return endpoint
    }
}

struct FakeOwnAdverts: OwnAdvertSource {
    var advert: ReceivedAdvert?
    var fails = false
    func latestOwnAdvert() throws -> ReceivedAdvert? {
        if fails { throw FakeFailure.unreadable }
        return advert
    }
}

struct FakeJoined: JoinedHomebaseSource {
    var records: [PublicKey: JoinedHomebase] = [:]
    var fails = false
    func joinedHomebase(_ hostKey: PublicKey) throws -> JoinedHomebase? {
        if fails { throw FakeFailure.unreadable }
        return records[hostKey]
    }
}

/// A provider that answers nothing; it only says which shape built it.
struct FakeProvider: ChatProvider {
    let brain: BrainKind
    let built: String
    func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        AsyncThrowingStream { $0.finish(throwing: InferenceError.unreachable("fake provider")) }
    }
}

/// Records every build; resolve() must never cause one.
final class FakeFactory: BrainFactory {
    private let log = Mutex<[String]>([])
    var builds: [String] { log.withLock { $0 } }

    private func record(_ brain: BrainKind, _ what: String) -> any ChatProvider {
        log.withLock { $0.append(what) }
        return FakeProvider(brain: brain, built: what)
    }
    func brain(for route: Route) -> any ChatProvider {
        switch route {
        case .onDevice(let model): record(.onDevice, "onDevice(\(model))")
        case .ownHomebase(let advert, _): record(.ownHomebase, "ownHomebase(seq \(advert.advert.sequence))")
        case .joinedHomebase(let r, _): record(.joinedHomebase, "joinedHomebase(\(r.relayURL))")
        case .localEndpoint(let e, let tag): record(.localEndpoint, "localEndpoint(\(e.url), \(tag))")
        case .cloud(let cloud, _): record(route.brain, "\(cloud)")
        }
    }
}

/// Everything a router reads, as plain values; `router()` wires them up.
struct FakeFacts {
    var settings = FakeSettings()
    var keys = FakeKeys()
    var endpoint = FakeEndpoint()
    var own = FakeOwnAdverts()
    var joined = FakeJoined()
    var homebaseKey: PublicKey?
    var clock = FakeClock()
    var factory = FakeFactory()
    var limits = FreshnessLimits()
    var onDevice = FixedOnDeviceAbilities()

    func router() -> Router {
        Router(settings: settings, keys: keys, localEndpoint: endpoint, ownAdverts: own, joined: joined,
               role: FixedHostRole(hostKey: homebaseKey), clock: clock, factory: factory, onDevice: onDevice, limits: limits)
    }
}

func model(_ tag: String, _ capabilities: AppMessage.Capabilities = [.completion]) -> AppMessage.ModelInfo {
    AppMessage.ModelInfo(tag: tag, family: "llama", parameterSize: "8.0B", quantization: "Q4_K_M",
                         contextLength: 8192, capabilities: capabilities)
}

/// An advert signed by `key` (or by `signer` when given: a wrong signature).
func signedAdvert(_ key: SigningKey, sequence: UInt64, timestampMs: UInt64 = 0, tags: [String] = ["llama3"],
                  signer: SigningKey? = nil) throws -> AppMessage.Advert {
    var advert = AppMessage.Advert(hostKey: key.publicKey, sequence: sequence, timestampMs: timestampMs,
                                   models: tags.map { model($0) })
    advert.signature = Bytes64((signer ?? key).sign(try advert.signedBytes()))!
    return advert
}

/// The RoutingError `body` throws, or nil.
func routingError(_ body: () throws -> Void) -> RoutingError? {
    do { try body(); return nil } catch let e as RoutingError { return e } catch { return nil }
}

let minute: Int64 = 60_000
let hour: Int64 = 3_600_000
