import Sealing
import Signing
import Wire

/// Relay admission tokens made from secrets both sides already hold, so nothing new is stored
/// or passed on (SPEC "Authentication"): the relay learns only the token's SHA-256 (from the
/// account's `admit-token` order) and the token (in `auth`), never the secret it comes from.
///
///     pair-code token = HMAC(code secret, "homebase-pair-relay-token-v1" || 0x00 || code id)
///     invite token    = HMAC(invite secret, "homebase-invite-relay-token-v1" || 0x00)
public enum AdmissionTokens {
    public static func pairCode(secret: Secret32, codeID: Bytes8) -> [UInt8] {
        PairingProofs.mac(secret, "homebase-pair-relay-token-v1", codeID.bytes)
    }

    public static func invite(secret: Secret32) -> [UInt8] {
        PairingProofs.mac(secret, "homebase-invite-relay-token-v1", [])
    }
}
