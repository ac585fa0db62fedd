import Pairing
import Sealing
import Signing
import Wire

/// Issuing a pairing code: the one path `homebase pair` and a sibling's `pair-code-request`
/// (the running agent) share. Only the device holding the account key issues codes: the agent
/// that answers the new device re-signs the roster with it.
public enum PairingIssue {
    /// How long a code stays valid unless told otherwise.
    public static let defaultValidMs: Int64 = 600_000
    /// Wrong attempts that burn a code unless told otherwise, and the allowed range.
    public static let defaultTries = 3
    public static let triesRange = 1...100

    /// Makes a fresh code pinned to `inviter` (this Homebase's record) and stores it open, with
    /// the sibling that asked for it (`asker`, told when the code is used or burnt).
    /// Throws `noAccountKey` on a device without the account key (nothing is stored then).
    public static func issue(files: HostFiles, store: HostStore, inviter: DeviceRecord, relayURL: String,
                             alternates: [String] = [], pin: [UInt8]?,
                             validMs: Int64, maxTries: Int, nowMs: Int64,
                             asker: (key: PublicKey, request: Bytes16)? = nil) throws(HomebaseError) -> PairingCode {
        _ = try files.loadAccountKey()
        let expires = nowMs + validMs
        let code = PairingCode.issue(relayURL: relayURL, alternates: alternates, pin: pin, expiresMs: expires, inviter: inviter)
        try store.savePairing(codeID: code.codeID, secret: code.secret, createdMs: nowMs, expiresMs: expires, maxTries: maxTries,
                              asker: asker)
        return code
    }
}
