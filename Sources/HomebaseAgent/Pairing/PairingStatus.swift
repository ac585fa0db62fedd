import Pairing

/// What `homebase status` says of the newest pairing code.
public struct PairingStatus: Codable, Sendable, Equatable {
    /// `open`, `used`, `burnt`, `retired` (used by a device removed since), or `expired` (open past its expiry).
    public var state: String
    public var expiresMs: Int64
    public var device: String?
    public var deviceKey: String?
    public var confirmation: String?
    public var wrongTries: Int

    init(_ r: PairingRecord) {
        state = r.state == .open && nowMs() >= r.expiresMs ? "expired" : r.state.rawValue
        expiresMs = r.expiresMs
        device = r.deviceName
        deviceKey = r.deviceKey?.hex
        confirmation = r.confirmation
        wrongTries = r.tries
    }

    package func line(nowMs: Int64) -> String {
        switch state {
        case "used": "last pairing: \"\(device ?? "?")\" \(deviceKey.map { String($0.prefix(16)) + "…" } ?? ""), confirmation \(confirmation ?? "?")"
        case "open": "pairing code open until \(PairingError.time(expiresMs)) (\(wrongTries) wrong tr\(wrongTries == 1 ? "y" : "ies"))"
        case "retired": "last pairing: \"\(device ?? "?")\", removed since (its code is retired)"
        case "burnt": "last pairing code: burnt after \(wrongTries) wrong tries"
        default: "last pairing code: expired unused"
        }
    }
}
