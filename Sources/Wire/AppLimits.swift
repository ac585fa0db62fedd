// The application messages' size limits (protocol/SPEC.md, "Limits"); the relay frames' are
// RelayWire's Limits.swift.
import RelayWire

extension Limits {
    /// Other nodes of one relay cluster an `invite` or a pairing code may name beside its relay
    /// URL, and the longest of each (UTF-8 bytes).
    public static let maxAlternates = 8
    public static let maxAlternateURL = 512
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
