import Inference
import RelayRouting
import Signing
import Routing
import Wire

/// Where an embeddings request goes, by the model it names and nothing else: vectors of
/// another model are useless to the client, so there is no fallback between models or brains.
///
/// 1. the own Homebase, when its fresh advert lists the model with the embedding bit;
/// 2. a joined Homebase heard from within its window whose grant lists the model with the
///    embedding bit (its advert's capabilities);
/// 3. the on-device embedding engine, when the model is the on-device model;
/// 4. else `unknownModel`, naming what is available.
///
/// A Homebase route that fails (not connected, timeout, the host's error) is that failure,
/// said as such: never vectors from somewhere else.
public struct EmbeddingRouting: Sendable {
    public enum Outcome: Sendable, Equatable {
        case vectors([[Double]], promptTokens: Int, model: String, brain: BrainKind)
        /// No brain here makes this model's vectors (with what is available).
        case unknownModel(String)
        /// The brain chosen could not make them (with why).
        case failed(String)
    }

    /// Where a model's vectors would be made, without asking anyone.
    public enum Choice: Sendable, Equatable {
        case ownHomebase(PublicKey)
        case joinedHomebase(JoinedHomebase)
        case onDevice
        case none(available: [String])
    }

    /// A Homebase's answer is awaited this long by default (RelayRouting's `HomebaseEmbedder`).
    public static let defaultTimeout: Duration = HomebaseEmbedder.defaultTimeout

    let context: GuestContext
    let local: LocalEmbeddings
    /// Wait for a Homebase's answer (`guest serve --embedding-timeout`).
    public let timeout: Duration

    public init(context: GuestContext, local: LocalEmbeddings, timeout: Duration = HomebaseEmbedder.defaultTimeout) {
        self.context = context; self.local = local; self.timeout = timeout
    }

    /// The brain for `model` now (from the adverts and joins this guest holds).
    public func choose(_ model: String) -> Choice {
        let limits = context.configuration.freshness
        let now = SystemWallClock().nowMs()
        var available: [String] = []
        let own = (try? AccountAdverts(account: context.account, database: context.routingDatabase).latestOwnAdvert()) ?? nil
        if let own, limits.ownAdvert(receiptMs: own.receiptMs, nowMs: now).fresh {
            let embedding = own.advert.models.filter { $0.capabilities.contains(.embedding) }.map(\.tag)
            if embedding.contains(model) { return .ownHomebase(own.advert.hostKey) }
            available += embedding
        }
        for joined in (try? context.joined.all()) ?? [] where joined.state == .joined {
            guard let heard = joined.lastHeardMs, limits.joined(heardMs: heard, nowMs: now).fresh else { continue }
            let embedding = joined.models.filter { joined.capabilities[$0]?.contains(.embedding) == true }
            if embedding.contains(model) { return .joinedHomebase(joined) }
            available += embedding
        }
        if let alias = onDeviceAlias() {
            if [alias, "default", alias + ":latest"].contains(model) { return .onDevice }
            available.append(alias)
        }
        return .none(available: available)
    }

    public func embed(model: String, inputs: [String]) async -> Outcome {
        let shown = String(model.prefix(80))
        switch choose(model) {
        case .none(let available):
            return .unknownModel("no embedding model \(shown) here: available "
                                 + (available.isEmpty ? "none" : available.joined(separator: ", ")))
        case .onDevice:
            switch await local.embed(model: model, inputs: inputs) {
            case .vectors(let v, let tokens, let m): return .vectors(v, promptTokens: tokens, model: m, brain: .onDevice)
            case .unavailable(let why), .failed(let why): return .failed(why)
            }
        case .ownHomebase(let key):
            guard let homebases = context.factory.relay else {
                return .failed("embeddings of \(shown) come from the Homebase, and this guest has no relay link")
            }
            return await relay(homebases.ownEmbedder(hostKey: key, timeout: timeout), model, inputs, .ownHomebase)
        case .joinedHomebase(let record):
            guard let homebases = context.factory.relay else {
                return .failed("embeddings of \(shown) come from a joined Homebase, and this guest has no relay link")
            }
            return await relay(homebases.joinedEmbedder(record: record, timeout: timeout), model, inputs, .joinedHomebase)
        }
    }

    private func relay(_ embedder: HomebaseEmbedder, _ model: String, _ inputs: [String], _ brain: BrainKind) async -> Outcome {
        switch await embedder.embed(model: model, inputs: inputs) {
        case .success(let v):
            return .vectors(v.vectors.map { $0.map(Double.init) }, promptTokens: v.promptTokens, model: model, brain: brain)
        case .failure(let f):
            return .failed("embeddings of \(model.prefix(80)) through the \(brain == .ownHomebase ? "own" : "joined") "
                           + "Homebase failed (no other model answers in its place): \(f)")
        }
    }

    private func onDeviceAlias() -> String? {
        let decision = context.router.resolve()
        guard case .model(let target) = context.factory.resolver.resolve(decision.localModel) else { return nil }
        return target.alias
    }
}
