import Courier
import Routing
import Sealing
import Signing
import Synchronization
import Wire

/// Embeddings from a Homebase through the relay: one sealed `embed-request`, then its
/// `embed-result` or `error`. No fallback and no repair: vectors of another model would be
/// useless, so every failure is returned, saying what happened (not connected, timed out,
/// the host's error), and the caller answers it as an error.
public struct HomebaseEmbedder: Sendable {
    /// Why no vectors came back.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The request surely did not arrive (not connected to the relay, no device record).
        case unreachable(String)
        /// No answer within `timeout`.
        case timeout(Duration)
        /// The Homebase left the relay, or the link ended, before answering.
        case interrupted(String)
        /// The host's `error` (its code's spec name and its message).
        case host(code: String, message: String)
        /// The host answered vectors that do not fit the request (count or model).
        case mismatched(String)

        public var description: String {
            switch self {
            case .unreachable(let why): "the Homebase is not reachable: \(why)"
            case .timeout(let d): "the Homebase sent no embeddings within \(d) (--embedding-timeout)"
            case .interrupted(let why): "the Homebase did not answer: \(why)"
            case .host(let code, let message): "the Homebase answered \(code): \(message)"
            case .mismatched(let why): "the Homebase's answer does not fit the request: \(why)"
            }
        }

        /// The host said it cannot make this model's vectors (as against failing to).
        public var isModelUnavailable: Bool {
            if case .host(let code, _) = self { return code == "model_unavailable" }
            return false
        }
    }

    public struct Vectors: Sendable, Equatable {
        public var vectors: [[Float]]
        public var promptTokens: Int
    }

    /// Default wait for the answer, sending included: embedding a batch is one engine call.
    public static let defaultTimeout: Duration = .seconds(60)

    public let hostKey: PublicKey
    public let timeout: Duration
    let courier: Courier
    let directory: any DeviceDirectory
    let log: (@Sendable (String) -> Void)?

    public init(hostKey: PublicKey, courier: Courier, directory: (any DeviceDirectory)? = nil,
                timeout: Duration = HomebaseEmbedder.defaultTimeout, log: (@Sendable (String) -> Void)? = nil) {
        self.hostKey = hostKey; self.courier = courier; self.directory = directory ?? courier.directory
        self.timeout = timeout; self.log = log
    }

    /// The vectors of `inputs` from `model` on this Homebase, or why not.
    public func embed(model: String, inputs: [String]) async -> Result<Vectors, Failure> {
        let result = await exchange(model: model, inputs: inputs)
        if case .failure(let f) = result { log?("homebase \(shortKey(hostKey)) embeddings: \(f)") }
        return result
    }

    private func exchange(model: String, inputs: [String]) async -> Result<Vectors, Failure> {
        guard let host = directory.record(for: hostKey) else {
            return .failure(.unreachable("no device record for Homebase \(shortKey(hostKey))"))
        }
        let requestID = Bytes16(unchecked: randomBytes(count: Bytes16.count))
        let request = AppMessage.EmbedRequest(requestID: requestID, model: model, inputs: inputs)
        let (outcome, replies) = await courier.sendEmbedRequest(request, to: host)
        switch outcome {
        case .sent, .failed(.timeout): break  // arrived, or may have: wait for the answer
        case .notHere: return .failure(.unreachable("the Homebase is not connected to the relay"))
        case .dropped: return .failure(.unreachable("the relay dropped the request (the Homebase reads too slowly)"))
        case .failed(let e): return .failure(.unreachable("the request was not sent: \(e)"))
        }
        let fired = FiredFlag()
        let timer = Task { [timeout] in
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            fired.set()
            replies.cancel()
        }
        defer { timer.cancel() }
        for await reply in replies {
            switch reply {
            case .message(.embedResult(let r)):
                guard r.model == model else { return .failure(.mismatched("vectors of \(r.model.prefix(80)), not \(model.prefix(80))")) }
                guard r.vectors.count == inputs.count else {
                    return .failure(.mismatched("\(r.vectors.count) vectors for \(inputs.count) inputs"))
                }
                return .success(Vectors(vectors: r.vectors, promptTokens: Int(r.promptTokens)))
            case .message(.error(let e)):
                return .failure(.host(code: e.code.name, message: e.message))
            case .hostGone(let reason):
                return .failure(.interrupted(HostGone.words(reason)))
            case .streamFailure, .chunk, .message:
                continue  // no chunks belong to an embed-request; only its answer ends it
            }
        }
        if Task.isCancelled { return .failure(.interrupted("the caller stopped waiting")) }
        if fired.isSet { return .failure(.timeout(timeout)) }
        return .failure(.interrupted("the link to the relay ended"))
    }
}

/// Set once by the timer before it ends the replies: tells a timeout from the link ending.
private final class FiredFlag: Sendable {
    private let state = Mutex(false)
    func set() { state.withLock { $0 = true } }
    var isSet: Bool { state.withLock { $0 } }
}

extension HomebaseProviderFactory {
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
