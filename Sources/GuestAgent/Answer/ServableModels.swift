import Inference
import Routing
import Wire

/// What `guest serve` lists at `GET /v1/models` and `/api/tags`: every model a brain this
/// guest can reach right now would answer with, and that brain. `default` (whatever the router
/// picks) comes first; a name two brains offer is listed once, for the first of: the own
/// Homebase (advert within the freshness window), joined Homebases (joined, heard from within
/// their window), the verified local runtime, the on-device model. Embedding models are listed
/// too (Ollama lists them, capabilities `["embedding"]`): a Homebase's advertised with the
/// embedding bit, and the on-device model, which `LocalEmbeddings` makes vectors of.
public enum ServableModels {
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var brain: BrainKind
        /// What the own Homebase's last advert says of it (family, size, context, capabilities);
        /// nil for other brains, whose lists name models only.
        public var info: AppMessage.ModelInfo? = nil
        /// A joined Homebase's advertised capabilities of it (its grant names models only).
        public var capabilities: AppMessage.Capabilities? = nil

        /// Ollama's capability names for `/api/show`: the advertised bits ("completion" when
        /// none is said, as for runtimes that say nothing; an embedding-only model says only
        /// "embedding", as Ollama's do); the on-device model answers tools and makes embeddings.
        public var capabilityNames: [String] {
            if brain == .onDevice && info == nil { return ["completion", "tools", "embedding"] }
            guard let bits = info?.capabilities ?? capabilities else { return ["completion"] }
            var out: [String] = []
            if bits.contains(.completion) || !bits.contains(.embedding) { out.append("completion") }
            if bits.contains(.tools) { out.append("tools") }
            if bits.contains(.vision) { out.append("vision") }
            if bits.contains(.embedding) { out.append("embedding") }
            return out
        }
    }

    public static func list(_ context: GuestContext) -> [Entry] {
        let limits = context.configuration.freshness
        let now = SystemWallClock().nowMs()
        var out = [Entry(name: "default", brain: context.router.provider(model: nil).brain)]
        func add(_ names: [String], _ brain: BrainKind) {
            for n in names where !n.isEmpty && !out.contains(where: { $0.name == n }) { out.append(Entry(name: n, brain: brain)) }
        }
        let own = (try? AccountAdverts(account: context.account, database: context.routingDatabase).latestOwnAdvert()) ?? nil
        if let own, limits.ownAdvert(receiptMs: own.receiptMs, nowMs: now).fresh {
            for m in own.advert.models where !m.tag.isEmpty && !out.contains(where: { $0.name == m.tag }) {
                out.append(Entry(name: m.tag, brain: .ownHomebase, info: m))
            }
        }
        for joined in (try? context.joined.all()) ?? [] where joined.state == .joined {
            guard let heard = joined.lastHeardMs, limits.joined(heardMs: heard, nowMs: now).fresh else { continue }
            for n in joined.models where !n.isEmpty && !out.contains(where: { $0.name == n }) {
                out.append(Entry(name: n, brain: .joinedHomebase, capabilities: joined.capabilities[n]))
            }
        }
        if let local = (try? context.runtime.verifiedEndpoint()) ?? nil { add(local.models, .localEndpoint) }
        let decision = context.router.resolve()
        if case .model(let target) = context.factory.resolver.resolve(decision.localModel) { add([target.alias], .onDevice) }
        return out
    }
}
