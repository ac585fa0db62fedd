import Courier
import Foundation
import PeerLink
import Routing
import Sealing
import Signing
import Wire

/// `guest serve`'s background probe of its cooled-down Homebases: every `interval`, each is
/// sent a live `cancel` for a request that never existed (a Homebase ignores it), twice,
/// `gap` apart. The relay probes a quiet recipient itself and closes it when it is silent, so
/// a second frame that is still `sent` says the host is connected and answering: its cooldown
/// ends and the next request goes to it again. `not-here` says it is still gone.
public final class CooldownProbe: Sendable {
    private let task: Task<Void, Never>

    /// `gap`: above the relay's probe-after + probe-timeout (500 ms + 750 ms by default).
    public init(links: GuestLinks, cooldowns: CooldownFile, log: EventLog,
                interval: Duration = .seconds(5), gap: Duration = .milliseconds(2500)) {
        task = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                for c in cooldowns.current(nowMs: SystemWallClock().nowMs()) {
                    guard !Task.isCancelled, let host = PublicKey(hex: c.host) else { continue }
                    guard let (courier, record) = Self.route(links, host) else { continue }
                    if await Self.answers(courier, record, gap: gap) {
                        cooldowns.clear(host)
                        log.write("cooldown: homebase \(String(c.host.prefix(8)))… heard from again (probe): asked again")
                    }
                }
            }
        }
    }

    public func stop() { task.cancel() }

    /// The link whose directory knows `host`.
    static func route(_ links: GuestLinks, _ host: PublicKey) -> (Courier, DeviceRecord)? {
        for link in links.all {
            if let record = link.courier.directory.record(for: host) { return (link.courier, record) }
        }
        return nil
    }

    static func answers(_ courier: Courier, _ host: DeviceRecord, gap: Duration) async -> Bool {
        func ping() async -> LiveOutcome {
            await courier.send(.cancel(requestID: Bytes16(unchecked: randomBytes(count: Bytes16.count))), to: host)
        }
        guard await ping() == .sent else { return false }
        try? await Task.sleep(for: gap)
        return await ping() == .sent
    }
}
