/// The relay's bounded queue of data frames (`receive`) for one connection, in front of the
/// socket layer's own buffer. Control frames never enter it: they go straight to the socket, so
/// `stored`, `not-here` or `pong` are never stuck behind a backlog.
///
/// A frozen receiver fills its own queue and then loses its own live frames (the caller counts
/// the drop and tells the sender `dropped`); nothing here ever blocks another connection.
struct SendQueue {
    let maxFrames: Int
    let maxBytes: Int
    private var frames: [[UInt8]] = []
    private var head = 0
    private(set) var bytes = 0

    init(maxFrames: Int, maxBytes: Int) { self.maxFrames = maxFrames; self.maxBytes = maxBytes }

    var count: Int { frames.count - head }
    var isEmpty: Bool { count == 0 }

    /// Whether a frame of `size` bytes fits under both limits.
    func hasRoom(for size: Int) -> Bool { count < maxFrames && bytes + size <= maxBytes }

    /// Appends `frame` if it fits (or unconditionally with `force`, for the few ordered markers
    /// like `queue-empty`); false: the caller drops it.
    mutating func push(_ frame: [UInt8], force: Bool = false) -> Bool {
        guard force || hasRoom(for: frame.count) else { return false }
        frames.append(frame)
        bytes += frame.count
        return true
    }

    mutating func pop() -> [UInt8]? {
        guard head < frames.count else { return nil }
        let f = frames[head]
        frames[head] = []
        head += 1
        bytes -= f.count
        if head == frames.count {
            frames = []  // idle connections hold no storage
            head = 0
        } else if head >= 64 && head * 2 >= frames.count {
            frames.removeFirst(head)
            head = 0
        }
        return f
    }

    mutating func removeAll() { frames = []; head = 0; bytes = 0 }
}
