import Foundation
@testable import GuestAgent
import Inference
import Routing
import Signing
import Testing
import Wire

/// An own Homebase advert received just now, from host key 0x01... (a TEST fact).
struct FreshOwnAdvert: OwnAdvertSource {
    func latestOwnAdvert() throws -> ReceivedAdvert? {
        let model = AppMessage.ModelInfo(tag: "m", family: "llama", parameterSize: "1B", quantization: "Q4",
                                         contextLength: 2048, capabilities: [.completion])
        return ReceivedAdvert(advert: AppMessage.Advert(hostKey: .repeating(1), sequence: 1, timestampMs: 0, models: [model]),
                              receiptMs: SystemWallClock().nowMs() - 1_000)
    }
}

@Suite struct GuestCooldownTests {
    static let host = PublicKey(bytes: Bytes32.repeating(1).bytes)!

    func runner(_ homebase: any ChatProvider, _ local: any ChatProvider, _ file: CooldownFile) -> AnswerRunner {
        let factory = ScriptedFactory(onDeviceBrain: local, cloudBrain: homebase)
        var router = Router(settings: StaticSettings(values: [.modelSource: "external", .ollamaModel: "m"]),
                            keys: StaticKeys(present: []), localEndpoint: NoFacts(), ownAdverts: FreshOwnAdvert(),
                            joined: NoFacts(), role: FixedHostRole(hostKey: nil), clock: SystemWallClock(), factory: factory)
        router.cooldowns = file
        var r = AnswerRunner(router: router)
        r.cooldowns = file
        return r
    }

    let request = ChatRequest(model: "m", messages: [ChatMessage(role: .user, content: "hello")], maxTokens: 8)

    /// The Homebase never accepted: it is cooled down, the next request (another process reading
    /// the same file) goes on-device without asking it, and the reason says so.
    @Test func anAcceptTimeoutCoolsTheHomebaseDownForTheNextRequests() async throws {
        let dir = try temporaryDirectory("guest-tests")
        let homebase = RecordingProvider(brain: .ownHomebase, failure: .watchdog(.accept))
        let local = RecordingProvider(brain: .onDevice, events: [.text("ok"), .done(finishReason: "stop", usage: nil)])
        let first = try await runner(homebase, local, CooldownFile(path: dir + "/cooldowns.json")).run(request)
        #expect(first.metadata.brain == .onDevice)
        #expect(first.metadata.tried.map(\.failure) == [.watchdog(.accept)])
        #expect(homebase.requests.count == 1)
        let again = runner(homebase, local, CooldownFile(path: dir + "/cooldowns.json"))
        let decision = again.router.resolve()
        #expect(decision.route.brain == .onDevice)
        #expect(decision.reason.contains("cooled down since") && decision.reason.contains("timed out: accept"), "\(decision.reason)")
        let second = try await again.run(request)
        #expect(second.metadata.brain == .onDevice)
        #expect(homebase.requests.count == 1, "the cooled-down Homebase was asked again")
    }

    /// A Homebase that answered with its own error is alive: no cooldown.
    @Test func aHostErrorDoesNotCoolDown() async throws {
        let dir = try temporaryDirectory("guest-tests")
        let file = CooldownFile(path: dir + "/cooldowns.json")
        let homebase = RecordingProvider(brain: .ownHomebase, failure: .host(.busy, message: "later"))
        let local = RecordingProvider(brain: .onDevice, events: [.text("ok"), .done(finishReason: "stop", usage: nil)])
        _ = try await runner(homebase, local, file).run(request)
        #expect(file.current(nowMs: SystemWallClock().nowMs()).isEmpty)
        #expect(runner(homebase, local, file).router.resolve().route.brain == .ownHomebase)
    }

    /// An answer clears it; an expired one is gone by itself.
    @Test func anAnswerOrTheExpiryEndsIt() async throws {
        let dir = try temporaryDirectory("guest-tests")
        let file = CooldownFile(path: dir + "/cooldowns.json", length: .seconds(60))
        let now = SystemWallClock().nowMs()
        file.record(Self.host, because: .watchdog(.accept), nowMs: now - 5_000)
        #expect(file.cooldown(of: Self.host, nowMs: now)?.because == "timed out: accept")  // the file keeps the words
        #expect(file.cooldown(of: Self.host, nowMs: now) != nil)
        file.clear(Self.host)
        #expect(file.cooldown(of: Self.host, nowMs: now) == nil)
        file.record(Self.host, because: .watchdog(.accept), nowMs: now - 61_000)
        #expect(file.cooldown(of: Self.host, nowMs: now) == nil)
    }

    /// Which rungs say the Homebase is gone or frozen (cooled down) and which say it is alive.
    @Test func onlyNoAcceptAndASilentHostCoolDown() {
        let cools: [BrainFailure] = [.watchdog(.accept), .hostGone(.silent)]
        let alive: [BrainFailure] = [.watchdog(.firstOutput), .watchdog(.stall), .hostGone(.closed), .hostGone(.replaced),
                                     .notHere, .host(.busy, message: "later"), .interrupted, .brain(.timeout("accept"))]
        #expect(cools.filter(\.coolsDown) == cools)
        #expect(alive.filter(\.coolsDown).isEmpty)
    }
}
