import Courier
import PeerLink
import Wire

// A workstation going to sleep says goodbye (SleepWatch): an advert listing no models to every
// sibling and grantee (a guest routes on-device on an advert without models: Routing's Router),
// then the `away` naming it (so the guest can say "asleep", not "no models"), both stored at
// the relay, then a clean close of the link (the relay tells our recent
// correspondents `peer-gone`). On resume: reconnect; the connection event advertises at once.
extension HomebaseAgent {
    func startSleepWatch() {
        let watch = SleepWatch(settings: configuration.sleep, hooks: .init(
            goodbye: { [weak self] in await self?.sayGoodbye() },
            back: { [weak self] in self?.wakeUp() },
            log: { [weak self] in self?.log($0) }))
        sleepWatch.withLock { $0 = watch }
        watch.start()
    }

    func stopSleepWatch() {
        sleepWatch.withLock { $0 }?.stop()
    }

    /// "sleep: …" for `status` (nil before `start()`).
    var sleepStatus: String? { sleepWatch.withLock { $0 }?.status }

    /// The away advert, stored at the relay for every recipient (or the budget runs out: the
    /// watch cancels us), then the link closed.
    func sayGoodbye() async {
        // Seen as down from here on: the pulse and a reload queue their adverts for the reconnect.
        let (siblings, grantees) = state.withLock { s in
            s.publishing.linkState = .stopped
            s.publishing.advertDue = true
            let now = nowMs()
            return (Array(s.membership.siblings.values), s.membership.grants.values.compactMap { $0.first { $0.isActive(nowMs: now) }?.grantee })
        }
        let recipients = siblings + grantees
        var stored = 0
        if !recipients.isEmpty {
            do {
                let advert = try signer.next(models: [], nowMs: nowMs())
                let away = signer.away(for: advert, nowMs: nowMs())
                let courier = courier, ttl = configuration.advertTTL
                stored = await withTaskGroup(of: Bool.self) { group in
                    for device in recipients {
                        group.addTask {
                            let outcome = try? await courier.sendMail(.advert(advert), to: device, ttl: ttl,
                                                                      collapseKey: courier.collapseKey(AdvertSigner.advertKind, to: device.signingKey))
                            // After the advert (the relay keeps the order): an old guest skips it.
                            _ = try? await courier.sendMail(.away(away), to: device, ttl: ttl,
                                                            collapseKey: courier.collapseKey(AdvertSigner.awayKind, to: device.signingKey))
                            return outcome == .stored
                        }
                    }
                    return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                log("sleep: away advert \(advert.sequence) stored for \(stored) of \(recipients.count) device(s)")
            } catch {
                log("sleep: away advert: \(error)")
            }
        }
        courier.link.suspend()
        while courier.link.state != .stopped, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
        log("sleep: relay link closed")
    }

    /// Reconnects; the connection event sends the roster and, to siblings and grantees, an advert.
    func wakeUp() {
        state.withLock { $0.publishing.advertDue = true }
        courier.link.start()
    }
}
