// Every size limit of the wire protocol, in one place (protocol/SPEC.md, "Limits").

/// Size limits. Decoders check lengths against these and against the bytes remaining
/// BEFORE allocating, so no input can make them allocate more than it is long.
public enum Limits {
    /// Largest sealed payload a `send`/`receive` frame carries: 64 KiB.
    public static let maxSealed = 65_536
    /// Largest relay frame body: a sealed payload plus 256 bytes of frame fields.
    /// (`send` needs 118 of them with the longest collapse key.)
    public static let maxFrameBody = maxSealed + 256
    /// Largest relay frame on the wire: header plus body.
    public static let maxFrame = RelayFrame.headerSize + maxFrameBody
    /// Longest collapse key of a mail `send`.
    public static let maxCollapseKey = 64
    /// Longest relay origin string in a `challenge` (UTF-8 bytes).
    public static let maxOrigin = 512
    /// Longest admission token in an `auth` or an `invite`.
    public static let maxAdmissionToken = 1024
    /// Longest reason text of `auth-refused` and `error` frames (UTF-8 bytes).
    public static let maxReasonText = 1024
}
