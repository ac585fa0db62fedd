import Glibc

/// Unix time in milliseconds (CLOCK_REALTIME): envelope timestamps and the replay window.
@Sendable func wallClockMs() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return UInt64(max(0, ts.tv_sec)) * 1000 + UInt64(max(0, ts.tv_nsec)) / 1_000_000
}
