/// An OpenAI-compatible stream body read where libcurl reads it: SSE parsed, chunks decoded and
/// the prefill echo cut on the loop's thread, the `ChatEvent`s queued straight for the reader.
/// One thread hand-off per socket read (the loop → the reader) instead of two (the loop → the
/// client's task → the reader).
///
/// Confined to the loop thread (`receive`), except the queue, which is thread-safe.
final class OpenAIStreamSink: HTTPBodySink, @unchecked Sendable {
    let queue: ChatEventQueue
    private var parser = SSEParser(reportsStrayLines: true)
    private var decoder = OpenAIStreamDecoder()
    private var echo: PrefillEcho  // llama-server repeats the prefill first
    private var sse: [SSEEvent] = []
    private var decoded: [ChatEvent] = []
    private var out: [ChatEvent] = []

    init(prefill: String?, queue: ChatEventQueue = ChatEventQueue()) {
        echo = PrefillEcho(prefill)
        self.queue = queue
    }

    func attach(_ control: HTTPTransferControl) { queue.onResume(control.resume) }

    func receive(_ bytes: UnsafeRawBufferPointer) -> HTTPBodySinkVerdict {
        if queue.isEnded {
            // After `[DONE]` the rest is drained so the connection can be reused; a reader
            // that gave up (or an error) ends the transfer.
            return decoder.isDone ? .taken : .abort
        }
        if queue.mustPause() { return .pause }
        do {
            parser.parse(bytes, into: &sse)
            defer { sse.removeAll(keepingCapacity: true) }
            for event in sse {
                try decoder.handle(event, into: &decoded)
                for e in decoded { pass(e) }
                decoded.removeAll(keepingCapacity: true)
            }
        } catch {
            queue.push(out)
            out.removeAll()
            queue.finish(throwing: error)
            return .abort
        }
        // After `[DONE]` the reader is released at once; the loop drains the last bytes.
        queue.push(out, finishing: decoder.isDone)
        out.removeAll(keepingCapacity: true)
        return .taken
    }

    private func pass(_ e: ChatEvent) {
        if case .text(let t) = e {
            let shown = echo.pass(t)
            if !shown.isEmpty { out.append(.text(shown)) }
            return
        }
        let held = echo.flush()
        if !held.isEmpty { out.append(.text(held)) }
        out.append(e)
    }
}
