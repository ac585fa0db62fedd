import Courier
import RelayRouting
import Sealing
import Signing
import Wire

/// `guest host …` through the relay: one sealed `manage-request` to a Homebase, its
/// `manage-progress` handed to the caller as it comes, then the `manage-result` or the host's
/// `error` (SPEC.md "Managing the host's models"), a `HostRequest` as embeddings are. No
/// fallback: this is about that machine.
public struct HostManager: Sendable {
    public typealias Failure = HostRequest.Failure

    public static let defaultTimeout: Duration = .seconds(60)

    let request: HostRequest

    public var hostKey: PublicKey { request.hostKey }
    /// Nothing from the Homebase for this long fails the wait (progress restarts it).
    public var timeout: Duration { request.timeout }

    /// `record`: the host's record when the courier's directory may not hold it (a joined Homebase's).
    public init(hostKey: PublicKey, courier: Courier, record: DeviceRecord? = nil, timeout: Duration = HostManager.defaultTimeout) {
        request = HostRequest(hostKey: hostKey, courier: courier, record: record, timeout: timeout, flag: "--timeout")
    }

    public func run(_ action: AppMessage.ManageAction, model: String = "", runtime: String = "",
                    progress: @Sendable (AppMessage.ManageProgress) -> Void = { _ in }) async -> Result<AppMessage.ManageResult, Failure> {
        let id = Bytes16(unchecked: randomBytes(count: Bytes16.count))
        let message = AppMessage.manageRequest(.init(requestID: id, action: action, model: model, runtime: runtime))
        return await request.run(message, requestID: id) { reply -> Result<AppMessage.ManageResult, Failure>? in
            switch reply {
            case .message(.manageProgress(let p)): progress(p); return nil
            case .message(.manageResult(let r)): return .success(r)
            default: return nil
            }
        }
    }
}
