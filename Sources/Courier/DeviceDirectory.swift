import Sealing
import Signing

/// Who may talk to us: the agents implement it (siblings from the roster, grantees, joined
/// hosts). The Courier opens an envelope only with the record this returns for the sender key
/// the relay reported; a key it does not know is dropped (counted), never opened with a guess.
///
/// Called from the Courier's inbound task for every envelope: keep it fast and non-blocking.
public protocol DeviceDirectory: Sendable {
    /// The verified record of the device with this signing key, or nil if it is not one we talk to.
    func record(for key: PublicKey) -> DeviceRecord?

    /// Whether `key` is one of the account's own devices: their half-sent multi-part messages
    /// draw on a budget apart from everyone else's (`PartBudgets`). Default: false.
    func isOwnDevice(_ key: PublicKey) -> Bool
}

extension DeviceDirectory {
    public func isOwnDevice(_ key: PublicKey) -> Bool { false }
}
