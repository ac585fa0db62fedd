/// A binary min-heap of (timestamp, id): the replay guard forgets the oldest first.
struct TimestampHeap: Sendable {
    private var items: [(timestamp: UInt64, id: MessageID)] = []

    var oldest: (timestamp: UInt64, id: MessageID)? { items.first }

    mutating func push(_ timestamp: UInt64, _ id: MessageID) {
        items.append((timestamp, id))
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard items[i].timestamp < items[parent].timestamp else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    mutating func popOldest() -> (timestamp: UInt64, id: MessageID)? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var smallest = i
            if l < items.count && items[l].timestamp < items[smallest].timestamp { smallest = l }
            if r < items.count && items[r].timestamp < items[smallest].timestamp { smallest = r }
            if smallest == i { return top }
            items.swapAt(i, smallest)
            i = smallest
        }
    }
}
