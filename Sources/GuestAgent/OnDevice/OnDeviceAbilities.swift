import Inference
import Routing

/// What the on-device brain can do with a local model, as the router asks it (`decide(for:)`):
/// tools always (llama-server renders them with the model's template under `--jinja`, and the
/// agent loop parses calls written as text); images only when the model resolved for the call
/// has its projector on disk, which the engine is started with (`--mmproj`).
public struct ResolvedOnDeviceAbilities: OnDeviceAbilities {
    public let resolver: LocalModelResolver

    public init(resolver: LocalModelResolver) { self.resolver = resolver }

    public func capabilities(_ model: LocalModel) -> Set<ModelCapability> {
        guard case .model(let target) = resolver.resolve(model), target.projector != nil else { return [.tools] }
        return [.tools, .vision]
    }
}
