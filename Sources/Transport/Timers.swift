import CLinux

/// A scheduled callback; cancel it with `EventLoop.cancel(_:)`.
public struct TimerHandle: Hashable, Sendable {
    let id: UInt64
}

extension Duration {
    var nanoseconds: UInt64 {
        let (s, atto) = components
        guard s >= 0 else { return 0 }
        return UInt64(s) &* 1_000_000_000 &+ UInt64(atto / 1_000_000_000)
    }
}

/// A binary min-heap of deadlines. Cancelling only forgets the action (O(1)); dead entries are
/// skipped when they surface and swept when they outnumber live ones, so thousands of
/// idle/handshake/write timers that are mostly cancelled stay cheap.
struct TimerHeap {
    private struct Entry { var deadline: UInt64; var id: UInt64 }
    private var heap: [Entry] = []
    private var actions: [UInt64: () -> Void] = [:]
    private var nextID: UInt64 = 1

    var count: Int { actions.count }
    /// Timers ever added (what a per-frame timer would show).
    var scheduled: UInt64 { nextID - 1 }

    mutating func add(deadline: UInt64, _ action: @escaping () -> Void) -> TimerHandle {
        let id = nextID
        nextID += 1
        actions[id] = action
        heap.append(Entry(deadline: deadline, id: id))
        siftUp(heap.count - 1)
        return TimerHandle(id: id)
    }

    mutating func cancel(_ h: TimerHandle) {
        guard actions.removeValue(forKey: h.id) != nil else { return }
        if heap.count > 64, heap.count > 2 * actions.count { sweep() }
    }

    /// The earliest live deadline.
    mutating func nextDeadline() -> UInt64? {
        while let top = heap.first, actions[top.id] == nil { popTop() }
        return heap.first?.deadline
    }

    /// Removes and returns the actions due at `now`, earliest first.
    mutating func popDue(now: UInt64) -> [() -> Void] {
        var due: [() -> Void] = []
        while let top = heap.first, top.deadline <= now {
            popTop()
            if let a = actions.removeValue(forKey: top.id) { due.append(a) }
        }
        return due
    }

    private mutating func sweep() {
        heap.removeAll { actions[$0.id] == nil }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        if !heap.isEmpty { heap[0] = last; siftDown(0) }
    }

    private mutating func siftUp(_ i: Int) {
        var c = i
        while c > 0 {
            let p = (c - 1) / 2
            guard heap[c].deadline < heap[p].deadline else { return }
            heap.swapAt(c, p); c = p
        }
    }

    private mutating func siftDown(_ i: Int) {
        var p = i
        while true {
            let l = 2 * p + 1, r = l + 1
            var m = p
            if l < heap.count, heap[l].deadline < heap[m].deadline { m = l }
            if r < heap.count, heap[r].deadline < heap[m].deadline { m = r }
            if m == p { return }
            heap.swapAt(p, m); p = m
        }
    }
}
