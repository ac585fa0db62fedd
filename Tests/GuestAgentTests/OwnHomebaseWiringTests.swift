import Foundation
@testable import GuestAgent
import Inference
import Routing
import Signing
import Testing
import Wire

/// The own Homebase on real stores: an advert signed by the account key routes to the relay
/// seam, whose default fails at once; the runner answers on-device (here the floor: no model).
@Suite struct OwnHomebaseWiringTests {
    @Test func freshOwnAdvertRoutesToTheRelaySeamAndFallsBack() async throws {
        let dir = try temporaryDirectory("guest-tests")
        let context = try GuestContext(GuestConfiguration(paths: GuestPaths(dataDirectory: dir), environment: [:]))
        let host = SigningKey.generate()
        try context.account.write(host.publicKey)
        try context.settings.set(.modelSource, "external")
        try context.settings.set(.ollamaModel, "llama3.1:8b")
        var advert = AppMessage.Advert(hostKey: host.publicKey, sequence: 1,
                                       timestampMs: UInt64(SystemWallClock().nowMs()),
                                       models: [.init(tag: "llama3.1:8b", family: "llama", parameterSize: "8B",
                                                      quantization: "Q4_K_M", contextLength: 8192, capabilities: .completion)])
        advert.signature = Bytes64(unchecked: host.sign(try advert.signedBytes()))
        try OwnAdvertStore(database: context.routingDatabase, accountHostKey: host.publicKey).accept(advert, heldMs: 0)

        let decision = context.router.resolve()
        #expect(decision.route.brain == .ownHomebase, "\(decision)")
        let answer = try await context.runner.run(ChatRequest(model: "m", messages: [ChatMessage(role: .user, content: "hi")]))
        #expect(answer.metadata.tried.map(\.brain) == [.ownHomebase])
        #expect(answer.metadata.tried.map(\.failure) == [.notSent("relay link not configured")])
        #expect(answer.metadata.brain == .floor)
        #expect(answer.text.contains("No brain was reachable"))
        let status = GuestStatus.gather(context)
        #expect(status.ownAdvertAgeSeconds != nil)
        #expect(status.lastFallback?.contains("homebase failed") == true)
        await context.shutdown()
    }
}
