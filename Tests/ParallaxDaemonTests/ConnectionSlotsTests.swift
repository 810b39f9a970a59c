import Glibc
import Testing
@testable import ParallaxDaemon

/// The slot policy alone (ConnectionSlots.swift): who is admitted, refused or displaced.
@Suite struct ConnectionSlotsTests {
    static let root: uid_t = 0
    static let nobody: uid_t = 65534
    static let seatUser: uid_t = 1000

    /// Fills `slots` with `n` connections of `uid`, ids from `firstID`, as a daemon would.
    private func fill(_ slots: inout ConnectionSlots, uid: uid_t, stranger: Bool, n: Int, firstID: Int) {
        for id in firstID..<firstID + n {
            #expect(slots.admission(uid: uid, stranger: stranger) == .admit)
            slots.add(id: id, uid: uid, stranger: stranger)
        }
    }

    @Test func aUserAtItsLimitIsRefusedWhileOthersAreAdmitted() {
        var slots = ConnectionSlots(capacity: 64, perUserLimit: 4)
        fill(&slots, uid: Self.nobody, stranger: true, n: 4, firstID: 1)
        #expect(slots.admission(uid: Self.nobody, stranger: true) == .refuse(.userLimit))
        #expect(slots.admission(uid: Self.root, stranger: false) == .admit)
        slots.remove(id: 2)
        #expect(slots.count(of: Self.nobody) == 3)
        #expect(slots.admission(uid: Self.nobody, stranger: true) == .admit)
    }

    @Test func aFullDaemonGivesAStrangersNewestSlotToAMember() {
        var slots = ConnectionSlots(capacity: 6, perUserLimit: 6)
        fill(&slots, uid: Self.root, stranger: false, n: 2, firstID: 1)
        fill(&slots, uid: Self.nobody, stranger: true, n: 4, firstID: 3)
        // Root holds 2, nobody 4 (only two more): fair share alone would refuse; a stranger's
        // slot is taken anyway, the newest.
        #expect(slots.admission(uid: Self.root, stranger: false) == .evict(6))
        // A stranger newcomer displaces only another user's strangers, by fair share.
        #expect(slots.admission(uid: 4242, stranger: true) == .evict(6))
        #expect(slots.admission(uid: Self.nobody, stranger: true) == .refuse(.full))
    }

    @Test func fairShareTakesFromTheUserHoldingTheMost() {
        var slots = ConnectionSlots(capacity: 8, perUserLimit: 8)
        fill(&slots, uid: Self.nobody, stranger: false, n: 6, firstID: 1)
        fill(&slots, uid: Self.seatUser, stranger: false, n: 2, firstID: 7)
        // Root holds nothing: nobody (6) gives up its least engaged, newest connection.
        slots.setSubscribed(id: 6, true)
        slots.markEngaged(id: 5)
        #expect(slots.admission(uid: Self.root, stranger: false) == .evict(4))
        // The seat user holds 2: nobody still holds 6 ≥ 2 + 2.
        #expect(slots.admission(uid: Self.seatUser, stranger: false) == .evict(4))
        // Nobody itself gets nothing: it holds the most.
        #expect(slots.admission(uid: Self.nobody, stranger: false) == .refuse(.full))
    }

    @Test func victimsAreIdleFirstThenUnsubscribedThenNewestSubscriber() {
        var slots = ConnectionSlots(capacity: 3, perUserLimit: 3)
        fill(&slots, uid: Self.nobody, stranger: false, n: 3, firstID: 1)
        for id in 1...3 { slots.markEngaged(id: id); slots.setSubscribed(id: id, true) }
        #expect(slots.admission(uid: Self.root, stranger: false) == .evict(3))
        slots.setSubscribed(id: 1, false)
        #expect(slots.admission(uid: Self.root, stranger: false) == .evict(1))
        slots.remove(id: 1)
        slots.add(id: 4, uid: Self.nobody, stranger: false)
        #expect(slots.admission(uid: Self.root, stranger: false) == .evict(4), "a newcomer that never asked for anything goes first")
    }

    @Test func aLoweredCapacityOnlyAffectsNewcomers() {
        var slots = ConnectionSlots(capacity: 4, perUserLimit: 4)
        fill(&slots, uid: Self.root, stranger: false, n: 4, firstID: 1)
        slots.capacity = 2   // a reload: nobody is closed for it
        #expect(slots.count == 4)
        #expect(slots.admission(uid: Self.seatUser, stranger: false) == .evict(4))
        #expect(slots.admission(uid: Self.root, stranger: false) == .refuse(.userLimit))
    }

    @Test func equalSharesAreNotShuffled() {
        // Two users holding 2 and 3: moving one slot would only swap who holds more.
        var slots = ConnectionSlots(capacity: 5, perUserLimit: 5)
        fill(&slots, uid: Self.seatUser, stranger: false, n: 2, firstID: 1)
        fill(&slots, uid: Self.nobody, stranger: false, n: 3, firstID: 3)
        #expect(slots.admission(uid: Self.seatUser, stranger: false) == .refuse(.full))
        #expect(slots.admission(uid: Self.root, stranger: false) == .evict(5))
    }

    @Test func outOfDescriptorsCountsAsFull() {
        var slots = ConnectionSlots(capacity: 64, perUserLimit: 64)
        fill(&slots, uid: Self.nobody, stranger: true, n: 3, firstID: 1)
        #expect(slots.admission(uid: Self.root, stranger: false, descriptorsExhausted: true) == .evict(3))
        #expect(slots.admission(uid: Self.nobody, stranger: true, descriptorsExhausted: true) == .refuse(.full))
    }

    @Test func aPromotedStrangerIsNoLongerDisplacedFirst() {
        var slots = ConnectionSlots(capacity: 2, perUserLimit: 2)
        fill(&slots, uid: Self.seatUser, stranger: true, n: 1, firstID: 1)
        fill(&slots, uid: Self.nobody, stranger: true, n: 1, firstID: 2)
        slots.promote(id: 1)
        #expect(slots.holders[1]?.stranger == false)
        #expect(slots.admission(uid: Self.root, stranger: false) == .evict(2))
        slots.remove(id: 2)
        slots.remove(id: 2)   // twice: no harm, counts stay right
        #expect(slots.count == 1 && slots.count(of: Self.nobody) == 0)
        #expect(slots.admission(uid: Self.root, stranger: false) == .admit)
    }
}

/// Refusals logged once per burst (RefusalLog.swift).
@Suite struct RefusalLogTests {
    static let second: Int64 = 1_000_000_000

    /// `log.record` as a value (#expect cannot call a mutating method itself).
    private func record(_ log: inout RefusalLog, _ uid: uid_t, _ reason: RefusalLog.Reason, at now: Int64) -> Bool {
        log.record(uid: uid, reason, now: now)
    }

    @Test func theFirstRefusalIsLoggedAndTheRestSummarisedPerWindow() {
        var log = RefusalLog(window: 10 * Self.second)
        #expect(record(&log, 65534, .idle, at: 0))
        var loggedAgain = false
        for i in 1...150 { loggedAgain = record(&log, 65534, .idle, at: Int64(i) * 1_000_000) || loggedAgain }
        for _ in 0..<37 { loggedAgain = record(&log, 65534, .userLimit, at: 2 * Self.second) || loggedAgain }
        #expect(!loggedAgain, "only the first refusal of a burst is logged on its own")
        #expect(record(&log, 0, .denied, at: 3 * Self.second), "another user's burst is its own")
        #expect(log.nextFlush == 10 * Self.second)
        #expect(log.flush(now: 9 * Self.second).isEmpty)
        let summaries = log.flush(now: 10 * Self.second)
        #expect(summaries.count == 1)
        #expect(summaries.first?.line == "refused 187 connections or requests from uid 65534 in the last 10 s: 37 over the per-user limit, 150 idle")
        #expect(summaries.first?.isRoutine == false)
        // Root's window had nothing after its first line: its burst ends quietly at 13 s.
        #expect(log.flush(now: 13 * Self.second).isEmpty)
        #expect(record(&log, 0, .denied, at: 14 * Self.second), "a new burst starts with a full line")
        // Nobody's second window is quiet: the burst ends, and the next refusal is logged in full.
        #expect(log.flush(now: 20 * Self.second).isEmpty)
        #expect(record(&log, 65534, .idle, at: 21 * Self.second))
    }

    @Test func deniedRequestsAloneAreRoutine() {
        var log = RefusalLog(window: Self.second)
        _ = record(&log, 1000, .denied, at: 0)
        _ = record(&log, 1000, .denied, at: 1)
        #expect(log.flush(now: Self.second).first?.isRoutine == true)
    }
}
