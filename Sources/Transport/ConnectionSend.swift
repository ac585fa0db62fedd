import Basics
import CLinux
import Glibc

/// writev takes at most IOV_MAX (1024) buffers; 64 covers a burst of frames per call.
private let maxIOVecs = 64

extension Connection {
    /// Queues chunks (written in order, gathered into one sendmsg) and tries to write at once. Loop thread only.
    /// For plain TCP the arrays themselves are queued: a WebSocket header and its payload go out
    /// as two iovecs with no copy. Sending on a closing or closed connection does nothing.
    public func send(_ chunks: [[UInt8]]) { send(slices: chunks.map { $0[...] }) }

    public func send(_ bytes: [UInt8]) { send(slices: [bytes[...]]) }

    /// As `send(_:)`, for parts of larger arrays (the relay forwards the sealed bytes of a
    /// received frame as a slice of it, never copied for plain TCP).
    public func send(slices chunks: [ArraySlice<UInt8>]) {
        guard state == .open || state == .handshaking else { return }
        if let tls {
            // One SSL_write per call: a WebSocket header written on its own would be a TLS record
            // of its own (a second AEAD pass and 22 more bytes on the wire per message). Parts
            // are gathered in the loop's scratch buffer (no allocation per message).
            if let e = writeTLS(tls, chunks) { finish(e); return }
            enqueueCiphertext(tls)
        } else {
            for c in chunks where !c.isEmpty { append(c) }
        }
        queued()
    }

    /// As `send(slices:)` for two parts (a frame's header and its payload), with no array to
    /// hold them on the plain path.
    public func send(_ head: ArraySlice<UInt8>, _ tail: ArraySlice<UInt8>) {
        guard state == .open || state == .handshaking else { return }
        guard tls == nil else { send(slices: [head, tail]); return }
        if !head.isEmpty { append(head) }
        if !tail.isEmpty { append(tail) }
        queued()
    }

    /// The relay's forward: `head` (bytes the caller built on the stack: frame headers) then
    /// `tail`, in one sendmsg at once when nothing waits before them. Only what the socket does
    /// not take is queued (the head copied, the tail as its slice): a forward that goes straight
    /// out allocates nothing and touches no queue.
    public func send(head: UnsafeRawBufferPointer, tail: ArraySlice<UInt8>) {
        guard state == .open || state == .handshaking else { return }
        guard tls == nil, queuedBytes == 0 else { send(Array(head)[...], tail); return }
        let written = tail.withUnsafeBytes { t -> Int in
            var iov = (iovec(iov_base: UnsafeMutableRawPointer(mutating: head.baseAddress), iov_len: head.count),
                       iovec(iov_base: UnsafeMutableRawPointer(mutating: t.baseAddress), iov_len: t.count))
            return withUnsafeMutableBytes(of: &iov) { p in
                var m = msghdr()
                m.msg_iov = p.baseAddress!.assumingMemoryBound(to: iovec.self)
                m.msg_iovlen = t.count > 0 ? 2 : 1
                return sendmsg(fd, &m, Int32(MSG_NOSIGNAL))
            }
        }
        // A failed write queues it all: flush meets the error again and reports it as usual.
        let n = max(written, 0)
        if n == head.count + tail.count { return }
        if n < head.count { append(Array(UnsafeRawBufferPointer(rebasing: head[n...]))) }
        let t = tail.dropFirst(max(0, n - head.count))
        if !t.isEmpty { append(t) }
        queued()
    }

    private func queued() {
        if queuedBytes > configuration.maxQueuedBytes { finish(.sendQueueFull); return }
        flush()
        if state != .closed, queuedBytes > configuration.highWaterMark, !aboveHighWater {
            aboveHighWater = true
            handler?.connectionDidReachHighWater(self)
        }
    }

    private func writeTLS(_ tls: TLSSession, _ chunks: [ArraySlice<UInt8>]) -> TransportError? {
        let total = chunks.reduce(0) { $0 + $1.count }
        if total == 0 { return nil }
        if chunks.count == 1 { return chunks[0].withUnsafeBytes { tls.write($0) { enqueueCiphertext(tls) } } }
        // The own record layer encrypts large sends' parts where they lie: no gathering copy.
        // Small ones are gathered still: a copy of a few hundred bytes costs less than an
        // EVP_EncryptUpdate call per part (callgrind: ~1,400 instructions more per 256 B forward).
        if tls.usesOwnRecordLayer, total >= 4_096, chunks.count <= maxIOVecs {
            return withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: chunks.count) { parts in
                pin(chunks, 0, parts) { tls.write(parts: $0) { enqueueCiphertext(tls) } ?? nil }
            }
        }
        let scratch = loop.writeScratch
        guard total <= scratch.count else {
            var out: [UInt8] = []
            out.reserveCapacity(total)
            for c in chunks { out.append(contentsOf: c) }
            return out.withUnsafeBytes { tls.write($0) { enqueueCiphertext(tls) } }
        }
        var at = 0
        for c in chunks {
            c.withUnsafeBytes { p in
                if p.count > 0 { (scratch.baseAddress! + at).copyMemory(from: p.baseAddress!, byteCount: p.count) }
            }
            at += c.count
        }
        return tls.write(UnsafeRawBufferPointer(rebasing: scratch[0..<total])) { enqueueCiphertext(tls) }
    }

    /// Pins each chunk's storage in a nested closure (no escaping pointers), then `body`.
    private func pin(_ chunks: [ArraySlice<UInt8>], _ i: Int, _ parts: UnsafeMutableBufferPointer<UnsafeRawBufferPointer>,
                     _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) -> TransportError?) -> TransportError? {
        if i == chunks.count { return body(UnsafeBufferPointer(parts)) }
        return chunks[i].withUnsafeBytes { p in
            parts.initializeElement(at: i, to: p)
            return pin(chunks, i + 1, parts, body)
        }
    }

    /// Empties the loop's shared TLS output (after every OpenSSL call): straight to the socket
    /// when nothing waits before it, else (and whatever the socket did not take) copied into the
    /// queue. A failed send is left for `flush` to report.
    func enqueueCiphertext(_ tls: TLSSession) {
        let out = tls.output
        defer { tls.clearOutput() }
        guard out.count > 0, state != .closed else { return }
        var sent = 0
        if queuedBytes == 0 {
            let n = Glibc.send(fd, out.baseAddress, out.count, Int32(MSG_NOSIGNAL))
            if n > 0 { sent = n; lastWriteProgress = monotonicNanos() }
        }
        if sent < out.count { append(Array(UnsafeRawBufferPointer(rebasing: out[sent...]))) }
    }

    private func append(_ c: [UInt8]) { append(c[...]) }

    private func append(_ c: ArraySlice<UInt8>) {
        if queuedBytes == 0 { lastWriteProgress = monotonicNanos() }
        queue.append(c)
        queuedBytes += c.count
    }

    /// Writes as much as the socket takes; watches EPOLLOUT only while something remains.
    func flush() {
        while queuedBytes > 0, state != .closed {
            let n = writeSome()
            if n < 0 {
                let e = hb_errno()
                if e == EAGAIN || e == EWOULDBLOCK { break }
                if e == EINTR { continue }
                finish(e == EPIPE || e == ECONNRESET ? .peerClosed : .system(call: "sendmsg", errno: e))
                return
            }
            consume(n)
        }
        if state == .closed { return }
        if queuedBytes == 0 {
            // A few entries' storage is kept (no allocation per message); a burst's is released.
            if queue.capacity <= 8 { queue.removeAll(keepingCapacity: true) } else { queue = [] }
            queueHead = 0; sendOffset = 0
            if let t = writeTimer { loop.cancel(t); writeTimer = nil }
            if state == .closing { finish(nil); return }
        } else {
            armWriteTimer()
        }
        if aboveHighWater, queuedBytes <= configuration.highWaterMark / 2 {
            aboveHighWater = false
            handler?.connectionDidDrain(self)
        }
        updateInterest()
    }

    private func writeSome() -> Int {
        let count = min(queue.count - queueHead, maxIOVecs)
        return withUnsafeTemporaryAllocation(of: iovec.self, capacity: count) { iov in
            gather(0, count, iov.baseAddress!)
        }
    }

    /// Pins each queued array's storage in a nested closure (no escaping pointers), then writev.
    private func gather(_ i: Int, _ count: Int, _ iov: UnsafeMutablePointer<iovec>) -> Int {
        if i == count {
            // sendmsg, not writev: MSG_NOSIGNAL turns a write to a reset peer into EPIPE, not a fatal SIGPIPE.
            var m = msghdr()
            m.msg_iov = iov
            m.msg_iovlen = count
            return sendmsg(fd, &m, Int32(MSG_NOSIGNAL))
        }
        return queue[queueHead + i].withUnsafeBytes { p in
            let skip = i == 0 ? sendOffset : 0
            iov[i] = iovec(iov_base: UnsafeMutableRawPointer(mutating: p.baseAddress! + skip), iov_len: p.count - skip)
            return gather(i + 1, count, iov)
        }
    }

    private func consume(_ written: Int) {
        var n = written
        queuedBytes -= n
        lastWriteProgress = monotonicNanos()
        while n > 0 {
            let left = queue[queueHead].count - sendOffset
            if n >= left { n -= left; queue[queueHead] = []; queueHead += 1; sendOffset = 0 } else { sendOffset += n; n = 0 }
        }
        if queueHead > 32, queueHead * 2 > queue.count { queue.removeFirst(queueHead); queueHead = 0 }
    }

    func updateInterest() {
        guard state != .closed else { return }
        var want: UInt32 = 0
        if !readPaused, state != .closing { want |= Epoll.readable | Epoll.readHangup }
        if queuedBytes > 0 { want |= Epoll.writable }
        if want != interest { interest = want; loop.modify(fd, events: want) }
    }

    /// Fires when queued output has made no progress for the write timeout.
    func armWriteTimer() {
        guard writeTimer == nil else { return }
        let limit = configuration.writeTimeout.nanoseconds
        let wait = limit &- min(limit, monotonicNanos() &- lastWriteProgress)
        writeTimer = loop.schedule(after: .nanoseconds(Int64(wait))) { [weak self] in
            guard let self, self.state != .closed else { return }
            self.writeTimer = nil
            guard self.queuedBytes > 0 else { return }
            if monotonicNanos() &- self.lastWriteProgress >= limit { self.finish(.writeTimeout) } else { self.armWriteTimer() }
        }
    }
}
