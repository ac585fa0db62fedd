import CSystemd
import Foundation
import Glibc
import Synchronization

/// systemd-logind's sleep notice, through sd-bus on a thread of its own (never the agent's
/// path): holds a sleep *delay* lock (`Inhibit("sleep", …, "delay")`), and on
/// `PrepareForSleep(true)` runs `goodbye` (bounded by `SleepSettings.goodbyeBudget`) before closing
/// the lock's fd, which lets the machine sleep. On `PrepareForSleep(false)` it runs `back` and
/// takes a new lock. Without a system bus or logind it does nothing and `status` says so.
extension HomebaseAgent {
    /// The sleep watch of `homebase run` (`--logind-bus`, `--sleep-goodbye`, `--sleep-watch`).
    public struct SleepSettings: Sendable {
        /// The system bus's D-Bus address; nil: `$DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket.
        public var busAddress: String?
        /// Longest the goodbye may hold the machine awake. 2 s: logind's InhibitDelayMaxSec is
        /// 5 s by default, and past it logind sleeps anyway.
        public var goodbyeBudget: Duration = .seconds(2)
        /// How often the watch thread looks up from the bus to see whether the agent stopped. 200 ms.
        public var stopCheck: Duration = .milliseconds(200)
        /// Off: no bus at all (status says so).
        public var enabled = true
        public init() {}
    }
}

final class SleepWatch: Sendable {
    struct Hooks: Sendable {
        /// Before sleeping: the away advert, the link closed. Cancelled past the budget.
        var goodbye: @Sendable () async -> Void
        /// On resume: reconnect and advertise.
        var back: @Sendable () -> Void
        var log: @Sendable (String) -> Void
    }

    static let defaultAddress = "unix:path=/run/dbus/system_bus_socket"
    private static let absent = "the relay finds out when the link goes quiet"

    let settings: HomebaseAgent.SleepSettings
    private let hooks: Hooks
    private let line = Mutex("starting")
    private let stopping = Atomic(false)

    init(settings: HomebaseAgent.SleepSettings, environment: [String: String] = ProcessInfo.processInfo.environment, hooks: Hooks) {
        var s = settings
        if s.busAddress == nil { s.busAddress = environment["DBUS_SYSTEM_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 } }
        self.settings = s
        self.hooks = hooks
    }

    /// What `status` shows after "sleep: ".
    var status: String { line.withLock { $0 } }

    func start() {
        guard settings.enabled else { return set("off (--sleep-watch off): " + Self.absent) }
        let thread = Thread { [self] in watch() }
        thread.name = "homebase-sleep-watch"
        thread.start()
    }

    /// The thread ends at its next look up (`stopCheck`), closing the lock.
    func stop() { stopping.store(true, ordering: .releasing) }

    private func set(_ s: String) {
        line.withLock { $0 = s }
    }

    private func watch() {
        let address = settings.busAddress ?? Self.defaultAddress
        var bus: OpaquePointer?
        let opened = homebase_bus_open(address, &bus)
        guard opened >= 0, let bus else {
            return set("no logind (system bus unreachable at \(address): \(Self.errno(opened))): " + Self.absent)
        }
        defer { sd_bus_flush_close_unref(bus) }
        let signals = Unmanaged.passRetained(SignalBox())
        defer { signals.release() }
        var slot: OpaquePointer?
        let matched = sd_bus_match_signal(bus, &slot, "org.freedesktop.login1", "/org/freedesktop/login1",
                                          "org.freedesktop.login1.Manager", "PrepareForSleep", onPrepareForSleep,
                                          signals.toOpaque())
        defer { sd_bus_slot_unref(slot) }
        guard matched >= 0 else { return set("no logind (cannot watch PrepareForSleep: \(Self.errno(matched))): " + Self.absent) }
        var lock = inhibit(bus)
        guard lock >= 0 else { return }
        while !stopping.load(ordering: .acquiring) {
            var r: Int32
            repeat { r = sd_bus_process(bus, nil) } while r > 0
            if r < 0 {
                set("system bus lost (\(Self.errno(r))): " + Self.absent)
                break
            }
            for sleeping in signals.takeUnretainedValue().take() {
                if sleeping, lock >= 0 {
                    set("going to sleep: saying goodbye")
                    sayGoodbye()
                    close(lock)
                    lock = -1
                    hooks.log("sleep: lock released")
                    set("asleep (logind said PrepareForSleep); reconnects on resume")
                } else if !sleeping {
                    hooks.log("sleep: resumed; reconnecting")
                    hooks.back()
                    if lock < 0 { lock = inhibit(bus) }
                }
            }
            let us = UInt64(settings.stopCheck.components.seconds) * 1_000_000
                + UInt64(settings.stopCheck.components.attoseconds / 1_000_000_000_000)
            _ = sd_bus_wait(bus, us)
        }
        if lock >= 0 { close(lock) }
    }

    /// The delay lock's fd, or -1 (status says why).
    private func inhibit(_ bus: OpaquePointer) -> Int32 {
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var fd: Int32 = -1
        let r = homebase_inhibit(bus, "sleep", "homebase", "tell the relay and guests before sleeping", "delay", &fd, &error)
        guard r >= 0 else {
            let name = error.name.map { String(cString: $0) } ?? Self.errno(r)
            let why = name == "org.freedesktop.DBus.Error.ServiceUnknown" ? "no org.freedesktop.login1 on the system bus" : name
            set("no logind (\(why)): " + Self.absent)
            return -1
        }
        let budget = settings.goodbyeBudget
        set("holding a logind sleep delay lock: before sleeping, an away advert and a clean close (within \(budget))")
        hooks.log("sleep: holding a logind sleep delay lock")
        return fd
    }

    /// Runs `goodbye` and waits for it at most `goodbyeBudget` (then cancels it: logind will not wait long).
    private func sayGoodbye() {
        let done = DispatchSemaphore(value: 0)
        let goodbye = hooks.goodbye
        let task = Task {
            await goodbye()
            done.signal()
        }
        let budget = settings.goodbyeBudget.components
        let ns = Int(budget.seconds) * 1_000_000_000 + Int(budget.attoseconds / 1_000_000_000)
        if done.wait(timeout: .now() + .nanoseconds(ns)) == .timedOut {
            task.cancel()
            hooks.log("sleep: goodbye unfinished after \(settings.goodbyeBudget); sleeping anyway")
        }
    }

    private static func errno(_ r: Int32) -> String { String(cString: strerror(-r)) }
}

/// PrepareForSleep arguments, from the sd-bus callback to the watch loop (same thread; locked anyway).
private final class SignalBox: Sendable {
    private let pending = Mutex<[Bool]>([])
    func push(_ sleeping: Bool) { pending.withLock { $0.append(sleeping) } }
    func take() -> [Bool] { pending.withLock { p in defer { p = [] }; return p } }
}

private func onPrepareForSleep(_ m: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?,
                               _ error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
    var start: Int32 = 0
    guard let m, let userdata, homebase_read_bool(m, &start) >= 0 else { return 0 }
    Unmanaged<SignalBox>.fromOpaque(userdata).takeUnretainedValue().push(start != 0)
    return 0
}
