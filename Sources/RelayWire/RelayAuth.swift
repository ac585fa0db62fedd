// The exact bytes signed during the relay handshake. Domain strings keep these signatures from
// ever being valid for anything else (an advert, a roster, another relay's challenge).

/// Byte strings signed to authenticate at a relay (Wire has no crypto: callers sign and verify).
public enum RelayAuth {
    static let transcriptDomain = Array("homebase-relay-auth-v1".utf8)
    static let accountDomain = Array("homebase-account-device-v1".utf8)

    /// What the device signs with its device key in `auth`:
    ///
    ///     "homebase-relay-auth-v1" || 0x00 || origin length u16 BE || origin UTF-8
    ///     || challenge nonce (32) || device key (32)
    ///
    /// The origin binds the signature to the relay the device meant to reach, so a malicious relay
    /// cannot replay it to another. Throws if the origin is longer than `Limits.maxOrigin`.
    public static func transcript(origin: String, challenge: Bytes32, deviceKey: Bytes32) throws(WireError) -> [UInt8] {
        var w = ByteWriter(domain: transcriptDomain)
        try w.string(2, origin, limit: Limits.maxOrigin, "origin")
        w.fixed(challenge)
        w.fixed(deviceKey)
        return w.bytes
    }

    /// What an account key signs to vouch for a device key (the `account signature` of `auth`):
    ///
    ///     "homebase-account-device-v1" || 0x00 || device key (32)
    public static func accountBinding(deviceKey: Bytes32) -> [UInt8] {
        accountDomain + [0] + deviceKey.bytes
    }
}
