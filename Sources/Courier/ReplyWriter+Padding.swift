import Sealing

extension ReplyWriter {
    /// From now on every chunk of this stream, the final one included, is padded to at least
    /// `bucket` bytes of plaintext (a `StreamSealer.buckets` size; others round up): the relay
    /// then sees one constant chunk size (the cadence defence, SPEC 7). 0 restores the default.
    public func pad(chunksTo bucket: Int) {
        state.withLock { $0.floor = max(0, min(bucket, StreamSealer.buckets.last!)) }
    }
}
