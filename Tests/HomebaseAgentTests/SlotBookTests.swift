@testable import HomebaseAgent
import Sealing
import Signing
import Testing

/// The slot accounting alone (`SlotBook`, a pure state machine): grantees never take the last
/// slot or the last queue place, the owner's waiters go first and may take a grantee's place,
/// and one grantee holds at most its cap.
struct SlotBookTests {
    let a = SlotBook.Lane.grantee(try! DeviceIdentity.generate(name: "a", now: 1).signingKey.publicKey)
    let b = SlotBook.Lane.grantee(try! DeviceIdentity.generate(name: "b", now: 1).signingKey.publicKey)

    /// Arrives and, when it must wait, queues: "slot", "queued", "full" or "cap".
    func take(_ book: inout SlotBook, _ lane: SlotBook.Lane, evicted: inout [UInt64]) -> (String, UInt64?) {
        switch book.arrive(lane) {
        case .admitted: return ("slot", nil)
        case .overCap: return ("cap", nil)
        case .wait(let id): return book.enqueue(id, lane, evicted: &evicted) ? ("queued", id) : ("full", id)
        }
    }

    @Test func granteesLeaveOneSlotAndOnePlace() {
        var book = SlotBook(limit: 3, queue: 2, perGrantee: 10)
        var evicted: [UInt64] = []
        let got = [a, b, a, b, a].map { take(&book, $0, evicted: &evicted).0 }
        #expect(got == ["slot", "slot", "queued", "full", "full"])
        #expect(take(&book, .own, evicted: &evicted).0 == "slot")
        #expect(take(&book, .own, evicted: &evicted).0 == "queued")
        // The queue is full now: a third owner request takes the youngest grantee's place.
        let (third, _) = take(&book, .own, evicted: &evicted)
        #expect(third == "queued" && evicted.count == 1)
        #expect(book.waiters.allSatisfy { $0.lane == .own })
    }

    @Test func aFreedSlotGoesToTheOwnersWaiterFirst() {
        var book = SlotBook(limit: 2, queue: 2, perGrantee: 10)
        var evicted: [UInt64] = []
        #expect(take(&book, a, evicted: &evicted).0 == "slot")
        let (_, granteeWaiter) = take(&book, b, evicted: &evicted)
        #expect(take(&book, .own, evicted: &evicted).0 == "slot")
        let (_, ownWaiter) = take(&book, .own, evicted: &evicted)
        #expect(book.release(a) == [ownWaiter!])
        // The owner's slot frees: the grantee waiter may have a grantee slot again.
        #expect(book.release(.own) == [granteeWaiter!])
        #expect(book.active == 2 && book.waiters.isEmpty)
    }

    @Test func oneGranteeHoldsAtMostItsCapRunningOrWaiting() {
        var book = SlotBook(limit: 4, queue: 4, perGrantee: 2)
        var evicted: [UInt64] = []
        #expect([a, a, a, b].map { take(&book, $0, evicted: &evicted).0 } == ["slot", "slot", "cap", "slot"])
        #expect(take(&book, b, evicted: &evicted).0 == "queued")  // b's second: the grantees' three slots are taken
        #expect(take(&book, b, evicted: &evicted).0 == "cap")
        _ = book.release(a)
        #expect(take(&book, a, evicted: &evicted).0 == "queued")  // the freed slot went to b's waiter
    }

    @Test func aWaiterThatGivesUpGivesItsCountBack() {
        var book = SlotBook(limit: 2, queue: 2, perGrantee: 2)
        var evicted: [UInt64] = []
        #expect(take(&book, a, evicted: &evicted).0 == "slot")
        let (_, id) = take(&book, a, evicted: &evicted)
        #expect(book.abandon(id!) && !book.abandon(id!))
        #expect(take(&book, a, evicted: &evicted).0 == "queued")
    }

    @Test func withOneSlotGranteesShareItBehindTheOwner() {
        var book = SlotBook(limit: 1, queue: 1, perGrantee: 2)
        var evicted: [UInt64] = []
        #expect(take(&book, a, evicted: &evicted).0 == "slot")
        #expect(take(&book, b, evicted: &evicted).0 == "queued")
        let (own, ownID) = take(&book, .own, evicted: &evicted)
        #expect(own == "queued" && evicted.count == 1)  // the owner took b's place
        #expect(book.release(a) == [ownID!])
    }
}
