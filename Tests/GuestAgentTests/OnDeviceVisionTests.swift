import Foundation
@testable import GuestAgent
@testable import OnDeviceEngine
import Inference
@testable import ModelStore
import Routing
import Testing

/// An on-device vision model (#23): a ready store model with its projector on disk is resolved
/// with it, the engine is started with `--mmproj`, and the router sends an image there; a model
/// without one cannot see, and the image is refused with the reason.
@Suite struct OnDeviceVisionTests {
    /// A ready store model `id` whose files (and projector, when given) exist on disk.
    static func readyModel(_ context: GuestContext, repo: String, projector: String?) throws -> String {
        let store = context.modelStore
        let tier = QuantTier(quant: Quant("Q4_K_M")!, files: ["model-Q4_K_M.gguf"], projector: projector, bytes: 4, exact: true)
        let id = ModelRecord.id(repo: repo, quant: "Q4_K_M")
        let attempt = try #require(try store.begin(id: id, repo: repo, quant: "Q4_K_M", tier: tier, provisional: false))
        for file in tier.files + (projector.map { [$0] } ?? []) {
            let path = store.path(repo: repo, file: file)
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data("GGUF".utf8).write(to: URL(fileURLWithPath: path))
        }
        #expect(store.settle(id: id, attempt: attempt, to: .ready))
        return id
    }

    static let withImage = ChatRequest(model: "default", messages: [
        ChatMessage(role: .user, parts: [.text("what is this?"), .image(ImageData(mediaType: "image/png", bytes: [1, 2]))])])

    @Test func aLocalModelWithItsProjectorSeesImages() async throws {
        let context = try GuestContext(GuestConfiguration(paths: GuestPaths(dataDirectory: try temporaryDirectory("guest-tests")), environment: [:]))
        defer { Task { await context.shutdown() } }
        let vision = try Self.readyModel(context, repo: "owner/vision-model-GGUF", projector: "mmproj-F16.gguf")
        let text = try Self.readyModel(context, repo: "owner/text-model-GGUF", projector: nil)
        guard case .model(let target) = context.factory.resolver.resolve(.community(vision)) else { Issue.record("not resolved"); return }
        #expect(target.projector?.hasSuffix("mmproj-F16.gguf") == true)

        try context.settings.set(.modelSource, "community")
        try context.settings.set(.localModel, vision)
        let seeing = context.router.provider(for: Self.withImage)
        #expect(seeing.decision.refusal == nil)
        #expect(seeing.brain == .onDevice)
        #expect(seeing.decision.reason.contains("request carries an image and the on-device local model \(vision) can take them"))

        try context.settings.set(.localModel, text)
        guard case .noBrainCanSee(let why)? = context.router.provider(for: Self.withImage).decision.refusal else {
            Issue.record("a model without a projector was sent the image"); return
        }
        #expect(why.contains("the on-device local model \(text) cannot see images"))
    }

    /// The engine is started with the projector (a labelled fake binary records its arguments).
    @Test func theEngineIsStartedWithTheProjector() async throws {
        let dir = try temporaryDirectory("guest-tests")
        let fake = dir + "/llama-server", argsFile = dir + "/args"
        try "#!/bin/sh\necho \"$@\" > \(argsFile)\nexit 3\n".write(toFile: fake, atomically: true, encoding: .utf8)
        chmod(fake, 0o755)
        let supervisor = LlamaServerSupervisor(.init(locator: EngineLocator(configured: fake, environment: [:]),
                                                     healthDeadline: .seconds(20), stopGrace: .milliseconds(100)))
        _ = try? await supervisor.endpoint(for: GGUFTarget(path: "/m/model.gguf", alias: "v", projector: "/m/mmproj.gguf"))
        await supervisor.stop()
        let args = try String(contentsOfFile: argsFile, encoding: .utf8)
        #expect(args.contains("--model /m/model.gguf") && args.contains("--mmproj /m/mmproj.gguf"), "\(args)")
    }
}
