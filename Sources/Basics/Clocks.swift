#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Unix milliseconds of the wall clock (CLOCK_REALTIME): what is stored, signed or sent, and
/// ages across restarts. Never for deadlines: the wall clock jumps.
@inlinable package func wallClockMs() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
}

/// Monotonic nanoseconds (CLOCK_MONOTONIC): deadlines, timers and token buckets, which must
/// never jump with the wall clock.
@inlinable package func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}
