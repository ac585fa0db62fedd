import Courier
import Routing
import Sealing
import Signing
import Wire

/// Embeddings from a Homebase through the relay: one sealed `embed-request`, then its
/// `embed-result` or `error` (a `HostRequest`). No fallback and no repair: vectors of another
/// model would be useless, so every failure is returned, saying what happened (not connected,
/// timed out, the host's error), and the caller answers it as an error.
public struct HomebaseEmbedder: Sendable {
    public typealias Failure = HostRequest.Failure

    public struct Vectors: Sendable, Equatable {
        public var vectors: [[Float]]
        public var promptTokens: Int
    }

    /// Default wait for the answer, sending included: embedding a batch is one engine call.
    public static let defaultTimeout: Duration = .seconds(60)

    let request: HostRequest
    let log: (@Sendable (String) -> Void)?

    public var hostKey: PublicKey { request.hostKey }
    public var timeout: Duration { request.timeout }

    public init(hostKey: PublicKey, courier: Courier, directory: (any DeviceDirectory)? = nil,
                timeout: Duration = HomebaseEmbedder.defaultTimeout, log: (@Sendable (String) -> Void)? = nil) {
        request = HostRequest(hostKey: hostKey, courier: courier, directory: directory, timeout: timeout,
                              flag: "--embedding-timeout")
        self.log = log
    }

    /// The vectors of `inputs` from `model` on this Homebase, or why not.
    public func embed(model: String, inputs: [String]) async -> Result<Vectors, Failure> {
        let requestID = Bytes16(unchecked: randomBytes(count: Bytes16.count))
        let message = AppMessage.embedRequest(.init(requestID: requestID, model: model, inputs: inputs))
        let result = await request.run(message, requestID: requestID) { reply -> Result<Vectors, Failure>? in
            guard case .message(.embedResult(let r)) = reply else { return nil }  // only its answer ends it
            guard r.model == model else { return .failure(.mismatched("vectors of \(r.model.prefix(80)), not \(model.prefix(80))")) }
            guard r.vectors.count == inputs.count else {
                return .failure(.mismatched("\(r.vectors.count) vectors for \(inputs.count) inputs"))
            }
            return .success(Vectors(vectors: r.vectors, promptTokens: Int(r.promptTokens)))
        }
        if case .failure(let f) = result { log?("homebase \(shortKey(hostKey)) embeddings: \(f)") }
        return result
    }
}

extension HostRequest.Failure {
    /// The host said it cannot make this model's vectors (as against failing to).
    public var isModelUnavailable: Bool {
        if case .host(.modelUnavailable, _) = self { return true }
        return false
    }
}

extension RelayedHomebases {
    /// Embeddings from our own account's Homebase (the host named by `hostKey`).
    public func ownEmbedder(hostKey: PublicKey, timeout: Duration = HomebaseEmbedder.defaultTimeout) -> HomebaseEmbedder {
        HomebaseEmbedder(hostKey: hostKey, courier: courier, directory: directory, timeout: timeout, log: log)
    }

    /// Embeddings from another account's Homebase this device joined (over its relay's link).
    public func joinedEmbedder(record: JoinedHomebase, timeout: Duration = HomebaseEmbedder.defaultTimeout) -> HomebaseEmbedder {
        HomebaseEmbedder(hostKey: record.hostKey, courier: joinedCourier?(record) ?? courier, directory: directory,
                         timeout: timeout, log: log)
    }
}
