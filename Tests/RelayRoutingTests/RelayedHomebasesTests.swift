import Inference
@testable import RelayRouting
import Routing
import Synchronization
import Testing
import Wire

@Suite("the Homebases over the relay, behind the router's Homebase shapes")
struct RelayedHomebasesTests {
    @Test(arguments: ProviderPath.allCases) func buildsTheOwnHomebaseFromItsAdvertAndAnswers(via path: ProviderPath) async throws {
        let scene = try await Scene([.answer(["over the relay"])], via: path)
        defer { scene.stop() }
        let lines = Mutex<[String]>([])
        let homebases = RelayedHomebases(courier: scene.guest, ledger: scene.ledger, limits: .relaxed,
                                         log: { line in lines.withLock { $0.append(line) } })
        let advert = AppMessage.Advert(hostKey: scene.host.record.signingKey, sequence: 1,
                                       timestampMs: 0, models: [])
        let provider = homebases.ownHomebase(advert: ReceivedAdvert(advert: advert, receiptMs: 0))
        let built = try #require(provider as? HomebaseProvider)
        #expect(built.brain == .ownHomebase && built.kind == .own && built.hostKey == scene.host.record.signingKey)
        #expect(built.limits == .relaxed)
        let seen = try await read(provider, ChatRequest(model: "tiny", messages: chat("hi")))
        #expect(seen.done && seen.text == "over the relay")
        #expect(lines.withLock { $0.isEmpty })  // nothing to say about a plain answer
    }

    @Test(arguments: ProviderPath.allCases) func buildsTheJoinedHomebaseOnTheCourierOfItsRelay(via path: ProviderPath) async throws {
        let scene = try await Scene([.error(.busy)], via: path)
        defer { scene.stop() }
        let asked = Mutex<[String]>([])
        let lines = Mutex<[String]>([])
        let homebases = RelayedHomebases(courier: scene.guest, joinedCourier: { record in
            asked.withLock { $0.append(record.relayURL) }
            return nil  // none of its own: the default Courier
        }, ledger: scene.ledger, log: { line in lines.withLock { $0.append(line) } })
        let record = JoinedHomebase(hostKey: scene.host.record.signingKey, hpkeKey: Array(repeating: 1, count: 32),
                                    relayURL: "wss://friend.example/v1/connect", state: .joined, models: ["tiny"])
        let provider = homebases.joinedHomebase(record: record)
        #expect(provider.brain == .joinedHomebase)
        #expect(asked.withLock { $0 } == ["wss://friend.example/v1/connect"])
        let seen = try await read(provider, ChatRequest(model: "tiny", messages: chat("a secret prompt")))
        #expect(seen.brainFailure == .host(.busy, message: "scripted 3"))
        // The failure is logged, by cause only: never the prompt.
        // (The cancel's outcome, logged when it is heard, may come before or after this read.)
        let logged = lines.withLock { $0 }.filter { !$0.contains("cancel outcome") }
        #expect(logged.count == 1 && logged[0].contains("busy") && !logged[0].contains("secret"))
    }

    @Test(arguments: ProviderPath.allCases) func aLinkThatIsDownFailsAtOnceAsNotSent(via path: ProviderPath) async throws {
        let scene = try await Scene([.answer(["never"])], via: path)
        defer { scene.stop() }
        let idle = try makeCourier(try identity("idle guest"), knows: [scene.host.record], relay: scene.relay, loop: scene.loop,
                                 via: path)
        let p = HomebaseProvider(kind: .own, hostKey: scene.host.record.signingKey, courier: idle, ledger: scene.ledger)
        let seen = try await read(p, ChatRequest(model: "tiny", messages: chat("hi")))  // its link never started
        guard case .notSent(let why)? = seen.brainFailure, why.contains("not sent") else {
            Issue.record("expected notSent, got \(String(describing: seen.failure))")
            return
        }
        #expect(scene.host.seen.isEmpty)
    }
}
