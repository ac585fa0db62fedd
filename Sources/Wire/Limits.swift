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
    /// Other nodes of one relay cluster an `invite` or a pairing code may name beside its relay
    /// URL, and the longest of each (UTF-8 bytes).
    public static let maxAlternates = 8
    public static let maxAlternateURL = 512
    /// Longest admission token in an `auth` or an `invite`.
    public static let maxAdmissionToken = 1024
    /// Longest reason text of `auth-refused` and `error` frames (UTF-8 bytes).
    public static let maxReasonText = 1024
    /// Bytes an encoded `part` message adds to its payload: type 1, id 16, index 2, count 2, total 4.
    public static let partOverhead = 25
    /// Largest encoded inference request (`request`, `sync-delta`): 16 MiB, the bound a host's
    /// reassembler already holds a split message to (Courier's `reassembly`), so images add no
    /// memory a host did not already risk. About 514 parts of a 64 KiB relay.
    public static let maxRequestBytes = 16 << 20
    /// Largest image (decoded bytes) in a request: 10 MiB. A phone photo is 2-5 MB; OpenAI takes
    /// 20 MB, Anthropic 5 MB. Half the request bound, so a request with one large image still
    /// has room for its conversation.
    public static let maxImageBytes = 10 << 20
    /// Largest record of the typed reply stream (ReplyEvents.swift): the request bound.
    public static let maxReplyEvent = maxRequestBytes
}
