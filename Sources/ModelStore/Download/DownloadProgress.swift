/// Bytes so far of a whole pull (every file of the model), and the fraction when the total is known.
public struct DownloadProgress: Sendable, Equatable, Codable {
    public var received: Int64
    public var total: Int64?

    public init(received: Int64, total: Int64?) {
        self.received = received
        self.total = total
    }

    /// 0...1, nil when the total is unknown.
    public var fraction: Double? {
        guard let total, total > 0 else { return nil }
        return min(1, Double(received) / Double(total))
    }
}

/// One file to fetch.
struct DownloadItem: Sendable {
    var url: String
    var destination: String
    /// From the hub's tree; the finished file must have exactly this many bytes.
    var expectedSize: Int64?
    /// The LFS sha256 the hub announces as the file's ETag; a resume sends it as `If-Range`.
    var etag: String?
    /// The LFS sha256 from the hub's tree: the finished file must hash to it (nil: not checked).
    var sha256: String? = nil
}
