import COpenSSL

/// The relay's own TLS 1.3 record layer (RFC 8446 sections 5 and 4.6.3), used after OpenSSL's
/// handshake when the SSL object is freed (`TLSSession`; what kernel TLS does, in user space).
/// It reads ciphertext where the socket put it (`hb_bio_io.input`) and decrypts straight into
/// the caller's buffer, and seals straight into the loop's output (`hb_bio_io.output`): no record
/// buffer of its own but a partial record's, held only while a record is cut across reads.
/// Any malformed record, bad tag or unexpected message sends an alert (best effort) and fails the
/// connection with one `TransportError`; nothing is delivered after a failure.
final class TLSRecordLayer {
    enum ContentType: UInt8 { case changeCipherSpec = 20, alert = 21, handshake = 22, applicationData = 23 }
    enum Alert: UInt8 {
        case closeNotify = 0, unexpectedMessage = 10, badRecordMAC = 20, recordOverflow = 22
        case decodeError = 50, illegalParameter = 47, internalError = 80, userCanceled = 90
    }

    static let headerLength = 5
    /// RFC 8446 section 5.1-5.2: at most 2^14 bytes of content, 2^14 + 256 of ciphertext.
    static let maxPlaintext = 1 << 14
    static let maxCiphertext = (1 << 14) + 256
    /// The most one record can put in the reader's buffer (content, type and padding, before
    /// the padding is stripped): the caller's room for every `read`.
    static let maxOpened = maxCiphertext - TLS13Suite.tagLength
    /// Header, content type byte and tag around each record's content.
    static let overhead = headerLength + 1 + TLS13Suite.tagLength

    private let io: UnsafeMutablePointer<hb_bio_io>
    private let ciphers: AEADContexts
    private let readKeys: TrafficKeys
    private let writeKeys: TrafficKeys
    /// A record cut across reads (allocated only then, freed once it is opened).
    private var partial: UnsafeMutableRawBufferPointer?
    private var partialLength = 0
    private var sentClose = false
    private var failure: TransportError?

    /// The keys for reading and writing come from the two application traffic secrets (a server
    /// reads with the client's). Fails only if OpenSSL's HMAC does.
    init?(_ suite: TLS13Suite, readSecret: UnsafeRawBufferPointer, writeSecret: UnsafeRawBufferPointer,
          io: UnsafeMutablePointer<hb_bio_io>, ciphers: AEADContexts) {
        guard let r = TrafficKeys(suite, secret: readSecret, keyID: ciphers.nextKeyID()),
              let w = TrafficKeys(suite, secret: writeSecret, keyID: ciphers.nextKeyID()) else { return nil }
        readKeys = r; writeKeys = w
        self.io = io; self.ciphers = ciphers
        recordsPerKey = suite.recordsPerKey
    }

    deinit {
        ciphers.forget(readKeys.keyID); ciphers.forget(writeKeys.keyID)
        releasePartial()
    }

    var suite: TLS13Suite { readKeys.suite }
    /// A record cut across reads waits here (the reader has nothing new to give it yet).
    var holdsPartialRecord: Bool { partial != nil }
    /// Records read and written under the current keys (tests; the limit in `recordsPerKey`).
    var readSequence: UInt64 { readKeys.sequence }
    var writeSequence: UInt64 { writeKeys.sequence }
    /// The writer's record limit before its own KeyUpdate (tests lower it).
    var recordsPerKey: UInt64

    // MARK: reading

    /// Opens records from the input until one carries application data (into `buffer`, which has
    /// room for `maxOpened`), the input is used up (`needMore`; a cut record is kept), or the peer
    /// closed. KeyUpdate is answered on the way (its reply sealed into the output, `drain`ed when full).
    func read(into buffer: UnsafeMutableRawBufferPointer, drain: () -> Void) -> TLSSession.Read {
        while true {
            if let failure { return .failed(failure) }
            guard buffer.count >= Self.maxOpened else { return .failed(abort(.internalError, "read buffer below one record")) }
            let opened: Opened
            if partial == nil, let r = wholeRecordInInput() {
                opened = open(r, into: buffer, drain: drain)
            } else {
                switch stashInput() {
                case .needMore: return .needMore
                case .failed(let e): return .failed(e)
                case .record:
                    opened = open(UnsafeRawBufferPointer(start: partial!.baseAddress, count: partialLength), into: buffer, drain: drain)
                    releasePartial()
                }
            }
            switch opened {
            case .data(let n) where n > 0: return .bytes(n)
            case .data, .control: continue
            case .closed: return .closed
            case .failed(let e): return .failed(e)
            }
        }
    }

    private enum Opened { case data(Int), control, closed, failed(TransportError) }
    private enum Stash { case needMore, record, failed(TransportError) }

    /// The next record when the input holds all of it (and takes it from the input).
    private func wholeRecordInInput() -> UnsafeRawBufferPointer? {
        guard io.pointee.input_len >= Self.headerLength, let p = io.pointee.input else { return nil }
        let length = Int(p[3]) << 8 | Int(p[4])
        let total = Self.headerLength + length
        guard io.pointee.input_len >= total else { return nil }
        io.pointee.input = p + total
        io.pointee.input_len -= total
        return UnsafeRawBufferPointer(start: p, count: total)
    }

    /// Copies input into the partial record until it is whole (checking its header first).
    private func stashInput() -> Stash {
        if partial == nil {
            guard io.pointee.input_len > 0 else { return .needMore }
            partial = .allocate(byteCount: Self.headerLength + Self.maxCiphertext, alignment: 16)
            partialLength = 0
        }
        let buf = partial!
        func take(upTo want: Int) {
            let n = min(want - partialLength, io.pointee.input_len)
            guard n > 0, let src = io.pointee.input else { return }
            (buf.baseAddress! + partialLength).copyMemory(from: src, byteCount: n)
            partialLength += n
            io.pointee.input = src + n
            io.pointee.input_len -= n
        }
        take(upTo: Self.headerLength)
        guard partialLength >= Self.headerLength else { return .needMore }
        let length = Int(buf[3]) << 8 | Int(buf[4])
        if let e = checkHeader(UnsafeRawBufferPointer(start: buf.baseAddress, count: Self.headerLength)) { return .failed(e) }
        take(upTo: Self.headerLength + length)
        return partialLength == Self.headerLength + length ? .record : .needMore
    }

    private func releasePartial() {
        guard let p = partial else { return }
        p.deallocate()
        partial = nil; partialLength = 0
    }

    /// RFC 8446 section 5.1-5.2: after the handshake only application_data records (the outer
    /// type of every protected record) are legal; a change_cipher_spec now is unexpected_message.
    private func checkHeader(_ h: UnsafeRawBufferPointer) -> TransportError? {
        let length = Int(h[3]) << 8 | Int(h[4])
        guard h[0] == ContentType.applicationData.rawValue else {
            return abort(.unexpectedMessage, "record of type \(h[0]) after the handshake")
        }
        if length > Self.maxCiphertext { return abort(.recordOverflow, "record of \(length) bytes over 2^14+256") }
        if length < TLS13Suite.tagLength + 1 { return abort(.decodeError, "record of \(length) bytes, shorter than a tag and type") }
        return nil
    }

    private func open(_ record: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer, drain: () -> Void) -> Opened {
        if let e = checkHeader(UnsafeRawBufferPointer(rebasing: record[0..<Self.headerLength])) { return .failed(e) }
        guard readKeys.sequence < UInt64.max else { return .failed(abort(.internalError, "read sequence number exhausted")) }
        let body = record.count - Self.headerLength - TLS13Suite.tagLength
        guard let ctx = ciphers.ready(readKeys, encrypt: false) else { return .failed(abort(.internalError, "cipher init")) }
        let base = record.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let out = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var n: Int32 = 0, m: Int32 = 0
        guard EVP_DecryptUpdate(ctx, nil, &n, base, Int32(Self.headerLength)) == 1,
              EVP_DecryptUpdate(ctx, out, &n, base + Self.headerLength, Int32(body)) == 1, Int(n) == body,
              EVP_CIPHER_CTX_ctrl(ctx, hb_evp_ctrl_aead_set_tag(), Int32(TLS13Suite.tagLength),
                                  UnsafeMutableRawPointer(mutating: base + Self.headerLength + body)) == 1,
              EVP_DecryptFinal_ex(ctx, out + body, &m) == 1 else {
            return .failed(abort(.badRecordMAC, "record failed authentication"))
        }
        readKeys.sequence += 1
        // RFC 8446 section 5.4: the content type is the last non-zero byte; zeros after it are padding.
        var end = body
        while end > 0, out[end - 1] == 0 { end -= 1 }
        guard end > 0 else { return .failed(abort(.unexpectedMessage, "record with no content type")) }
        let content = end - 1
        guard content <= Self.maxPlaintext else { return .failed(abort(.recordOverflow, "record content over 2^14 bytes")) }
        switch ContentType(rawValue: out[content]) {
        case .applicationData: return .data(content)
        case .alert: return alert(UnsafeRawBufferPointer(start: out, count: content))
        case .handshake: return handshake(UnsafeRawBufferPointer(start: out, count: content), drain: drain)
        case .changeCipherSpec, nil: return .failed(abort(.unexpectedMessage, "protected record of type \(out[content])"))
        }
    }

    private func alert(_ a: UnsafeRawBufferPointer) -> Opened {
        guard a.count == 2 else { return .failed(abort(.decodeError, "alert of \(a.count) bytes")) }
        switch Alert(rawValue: a[1]) {
        case .closeNotify: return .closed
        case .userCanceled: return .control // a close_notify follows (RFC 8446 section 6.1)
        default:
            // Every other alert is fatal in TLS 1.3; none is answered.
            failure = .tls("record layer: peer sent alert \(a[1])")
            return .failed(failure!)
        }
    }

    /// Only KeyUpdate may come after the handshake here (tickets, post-handshake authentication
    /// and early data are all off on the server), alone in its record: a record may not hold
    /// messages across a key change (RFC 8446 section 5.1).
    private func handshake(_ h: UnsafeRawBufferPointer, drain: () -> Void) -> Opened {
        guard h.count >= 4, h[0] == 24 else { return .failed(abort(.unexpectedMessage, "handshake message \(h.count > 0 ? Int(h[0]) : -1) after the handshake")) }
        guard h.count == 5, h[1] == 0, h[2] == 0, h[3] == 1 else { return .failed(abort(.decodeError, "KeyUpdate of \(h.count) bytes")) }
        guard h[4] <= 1 else { return .failed(abort(.illegalParameter, "KeyUpdate request \(h[4])")) }
        let old = readKeys.keyID
        guard readKeys.update(keyID: ciphers.nextKeyID()) else { return .failed(abort(.internalError, "key update")) }
        ciphers.forget(old)
        if h[4] == 1, !sentClose {
            if let e = sendKeyUpdate(drain: drain) { return .failed(e) }
        }
        return .control
    }

    // MARK: writing

    /// Seals all of `plaintext` into the output as application data records of at most 2^14
    /// bytes, calling `drain` whenever the output has no room for the next record.
    func write(_ plaintext: UnsafeRawBufferPointer, drain: () -> Void) -> TransportError? {
        withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: 1) { one in
            one.initialize(repeating: plaintext)
            return write(parts: UnsafeBufferPointer(one), drain: drain)
        }
    }

    /// As `write(_:)` for parts sealed as one stream (a frame's header and its payload): each
    /// record's content is encrypted from the parts where they lie, never gathered first.
    func write(parts: UnsafeBufferPointer<UnsafeRawBufferPointer>, drain: () -> Void) -> TransportError? {
        if let failure { return failure }
        if sentClose { return .tls("record layer: write after close_notify") }
        var left = parts.reduce(0) { $0 + $1.count }
        var part = 0, offset = 0 // where the next record's content starts
        while left > 0 {
            if writeKeys.sequence >= recordsPerKey, let e = sendKeyUpdate(drain: drain) { return e }
            let cap = io.pointee.output_cap
            guard io.pointee.output != nil, cap > Self.overhead else { return abort(.internalError, "no output buffer") }
            let chunk = min(left, Self.maxPlaintext, cap - Self.overhead)
            let e = seal(.applicationData, count: chunk, drain: drain) { ctx, body in
                var at = 0
                while at < chunk {
                    let p = parts[part]
                    let take = min(chunk - at, p.count - offset)
                    if take > 0 {
                        var n: Int32 = 0
                        guard EVP_EncryptUpdate(ctx, body + at, &n, p.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset, Int32(take)) == 1,
                              Int(n) == take else { return false }
                    }
                    at += take; offset += take
                    if offset == p.count { part += 1; offset = 0 }
                }
                return true
            }
            if let e { return e }
            left -= chunk
        }
        return nil
    }

    /// Queues a close_notify (it fits any output left: the output is drained after every call).
    func shutdown() {
        guard !sentClose, failure == nil else { return }
        sentClose = true
        _ = sealControl(.alert, [1, Alert.closeNotify.rawValue], drain: {})
    }

    /// Our KeyUpdate (update_not_requested) under the current key, then the next write key.
    private func sendKeyUpdate(drain: () -> Void) -> TransportError? {
        if let e = sealControl(.handshake, [24, 0, 0, 1, 0], drain: drain) { return e }
        let old = writeKeys.keyID
        guard writeKeys.update(keyID: ciphers.nextKeyID()) else { return abort(.internalError, "key update") }
        ciphers.forget(old)
        return nil
    }

    private func sealControl(_ type: ContentType, _ bytes: [UInt8], drain: () -> Void) -> TransportError? {
        bytes.withUnsafeBytes { seal(type, $0, drain: drain) }
    }

    private func seal(_ type: ContentType, _ content: UnsafeRawBufferPointer, drain: () -> Void) -> TransportError? {
        seal(type, count: content.count, drain: drain) { ctx, body in
            var n: Int32 = 0
            return content.isEmpty || (EVP_EncryptUpdate(ctx, body, &n, content.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(content.count)) == 1
                                       && Int(n) == content.count)
        }
    }

    /// One record straight into the output (RFC 8446 section 5.2: AAD is the header; the inner
    /// plaintext is the content and its type, no padding). `encrypt` puts the `count` content
    /// bytes through the context into the record's body.
    private func seal(_ type: ContentType, count: Int, drain: () -> Void,
                      encrypt: (OpaquePointer, UnsafeMutablePointer<UInt8>) -> Bool) -> TransportError? {
        let total = count + Self.overhead
        if io.pointee.output_cap - io.pointee.output_len < total, io.pointee.output_len > 0 { drain() }
        guard let output = io.pointee.output, io.pointee.output_cap - io.pointee.output_len >= total else {
            return abort(.internalError, "output below one record")
        }
        guard writeKeys.sequence < UInt64.max else { return abort(.internalError, "write sequence number exhausted") }
        guard let ctx = ciphers.ready(writeKeys, encrypt: true) else { return abort(.internalError, "cipher init") }
        let out = output + io.pointee.output_len
        let length = total - Self.headerLength
        out[0] = ContentType.applicationData.rawValue; out[1] = 3; out[2] = 3
        out[3] = UInt8(length >> 8); out[4] = UInt8(length & 0xff)
        var n: Int32 = 0
        var t = type.rawValue
        let body = out + Self.headerLength
        guard EVP_EncryptUpdate(ctx, nil, &n, out, Int32(Self.headerLength)) == 1,
              encrypt(ctx, body),
              EVP_EncryptUpdate(ctx, body + count, &n, &t, 1) == 1, n == 1,
              EVP_EncryptFinal_ex(ctx, body + count + 1, &n) == 1,
              EVP_CIPHER_CTX_ctrl(ctx, hb_evp_ctrl_aead_get_tag(), Int32(TLS13Suite.tagLength), body + count + 1) == 1 else {
            return abort(.internalError, "sealing a record")
        }
        writeKeys.sequence += 1
        io.pointee.output_len += total
        return nil
    }

    // MARK: test hooks

    /// Seals any content type with `padding` zeros (tests: what a peer could send; nil type
    /// seals an inner plaintext with no content type at all).
    func sealForTests(_ type: ContentType?, _ content: [UInt8], padding: Int = 0) -> TransportError? {
        guard let type else {
            // An inner plaintext of zeros only: sealed as "type 0" with the zeros before it.
            return (content + [UInt8](repeating: 0, count: padding)).withUnsafeBytes { sealRaw(0, $0) }
        }
        return (content + [type.rawValue] + [UInt8](repeating: 0, count: padding)).withUnsafeBytes { sealRaw(nil, $0) }
    }

    /// The writer's next key, as if our KeyUpdate had just gone out (tests).
    func updateWriteKeyForTests() { _ = writeKeys.update(keyID: ciphers.nextKeyID()) }
    var writeSequenceForTests: UInt64 { get { writeKeys.sequence } set { writeKeys.sequence = newValue } }
    var readSequenceForTests: UInt64 { get { readKeys.sequence } set { readKeys.sequence = newValue } }

    /// Seals `inner` as the whole inner plaintext (plus one `lastByte` if given).
    private func sealRaw(_ lastByte: UInt8?, _ inner: UnsafeRawBufferPointer) -> TransportError? {
        let total = inner.count + (lastByte == nil ? 0 : 1) + Self.headerLength + TLS13Suite.tagLength
        guard let output = io.pointee.output, io.pointee.output_cap - io.pointee.output_len >= total,
              let ctx = ciphers.ready(writeKeys, encrypt: true) else { return .tls("no room") }
        let out = output + io.pointee.output_len
        let length = total - Self.headerLength
        out[0] = 23; out[1] = 3; out[2] = 3; out[3] = UInt8(length >> 8); out[4] = UInt8(length & 0xff)
        var n: Int32 = 0
        var b = lastByte ?? 0
        let body = out + Self.headerLength
        _ = EVP_EncryptUpdate(ctx, nil, &n, out, 5)
        if inner.count > 0 { _ = EVP_EncryptUpdate(ctx, body, &n, inner.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(inner.count)) }
        var at = inner.count
        if lastByte != nil { _ = EVP_EncryptUpdate(ctx, body + at, &n, &b, 1); at += 1 }
        _ = EVP_EncryptFinal_ex(ctx, body + at, &n)
        _ = EVP_CIPHER_CTX_ctrl(ctx, hb_evp_ctrl_aead_get_tag(), 16, body + at)
        writeKeys.sequence += 1
        io.pointee.output_len += total
        return nil
    }

    // MARK: failing

    /// Records the failure, queues its alert (if the output has room) and returns the error.
    private func abort(_ alert: Alert, _ reason: String) -> TransportError {
        let e = TransportError.tls("record layer: \(reason)")
        if failure == nil, !sentClose {
            sentClose = true
            let room = io.pointee.output_cap - io.pointee.output_len
            if io.pointee.output != nil, room >= 2 + Self.overhead { _ = sealControl(.alert, [2, alert.rawValue], drain: {}) }
        }
        failure = e
        return e
    }

}
