import Courier
import PeerLink
import Sealing
import Signing
import Wire

// What the host tells its devices: the roster (to siblings, on start and on change) and
// signed adverts (to siblings on the pulse and on a change; to grantees on events only).
// All of it is mail with a collapse key: an offline device finds only the newest of each.
extension HomebaseAgent {
    /// Re-reads the store (CLI commands change it while we run). Returns whether the catalog
    /// (models or availability) changed.
    @discardableResult
    func reload() throws(HomebaseError) -> Bool {
        let devices = try store.devices(), grants = try store.grants(), runtimes = try store.runtimes()
        let roster = try store.roster()
        let me = identity.signingKey.publicKey
        // A Homebase its roster no longer lists (removed from the account) serves no sibling.
        let listed = devices.contains { $0.record.signingKey == me }
        var siblings: [PublicKey: DeviceRecord] = [:]
        for d in devices where listed && d.record.signingKey != me { siblings[d.record.signingKey] = d.record }
        var byGrantee: [PublicKey: [GrantRecord]] = [:]
        for g in grants { byGrantee[g.grantee.signingKey, default: []].append(g) }
        directory.replace(siblings: siblings, grants: byGrantee)
        // Only these devices reach the replay check (the directory comes first): each keeps its
        // own replay state, so none is refused as a replay because others asked at the same time.
        courier.keepReplayState(forSenders: siblings.count + byGrantee.count)
        let catalog = ModelCatalog(runtimes: runtimes)
        return state.withLock { s in
            let changed = s.offer.catalog != catalog
            // A device removed from the roster hears the roster that removes it, once (from
            // the holder of the account key: only it sends rosters).
            if holdsAccountKey {
                for (key, record) in s.membership.siblings where siblings[key] == nil { s.publishing.removed[key] = record }
                for key in siblings.keys { s.publishing.removed[key] = nil }
            }
            s.membership = AgentMembership(siblings: siblings, grants: byGrantee, roster: roster, listed: listed)
            s.offer = AgentOffer(runtimes: runtimes, catalog: catalog)
            if holdsAccountKey, let v = roster?.version, v != s.publishing.rosterSent { s.publishing.rosterDue = true }
            return changed
        }
    }

    /// The reload tick: picks up CLI changes, sends what became due, rewrites `status.json`.
    func tick() {
        do {
            if try reload() { publishAdvert(toGrantees: true) }
            runtimesVerified()  // a verification by the CLI (`homebase runtime add`) ends a failure's skip too
        } catch {
            log("reload: \(error)")
        }
        if state.withLock({ $0.publishing.rosterDue }) { publishRoster() }
        refreshRelayOrders()
        deliverSharingNotices()
        writeStatus(running: true)
    }

    func linkEvent(_ e: CourierEvent) {
        guard case .link(let ls) = e else { return }
        let (dueAdvert, wasUp) = state.withLock { s in
            defer { s.publishing.linkState = ls }
            return (s.publishing.advertDue, s.publishing.linkState.isConnected)
        }
        switch ls {
        case .connected: log("connected to the relay")
        case .refused(let why, _): log("relay refused us: \(why)")
        case .waiting(let retry): if wasUp { log("relay link lost; retrying in \(retry)") }
        default: break
        }
        if ls.isConnected && !wasUp {
            state.withLock { $0.publishing.rosterDue = true }
            publishRoster()
            publishAdvert(toGrantees: dueAdvert)
            deliverSharingNotices()  // what a previous run left due, too
        }
    }

    /// Signs a new advert and mails it to every sibling (and, for events, every grantee with a
    /// grant in force). While the link is down nothing is queued: it goes out on reconnect.
    func publishAdvert(toSiblings: Bool = true, toGrantees: Bool) {
        let (up, catalog, siblings, grantees) = state.withLock { s in
            if !s.publishing.linkState.isConnected { s.publishing.advertDue = true }
            let now = nowMs()
            let grantees = s.membership.grants.values.compactMap { list in list.first { $0.isActive(nowMs: now) }?.grantee }
            return (s.publishing.linkState.isConnected, s.offer.catalog, Array(s.membership.siblings.values), grantees)
        }
        guard up else { return }
        state.withLock { $0.publishing.advertDue = false }
        let recipients = (toSiblings ? siblings : []) + (toGrantees ? grantees : [])
        guard !recipients.isEmpty else { return }  // nobody to tell: no sequence number spent
        let advert: AppMessage.Advert
        do { advert = try signer.next(models: catalog.models, nowMs: nowMs()) } catch {
            return log("advert: \(error)")
        }
        let ttl = configuration.advertTTL
        let grants = state.withLock { $0.membership.grants }
        for device in recipients {
            var message = AppMessage.advert(advert)
            // A grantee sees only the models its grant names (signed again over what it lists).
            if !siblings.contains(device), let g = grants[device.signingKey]?.first(where: { $0.isActive(nowMs: nowMs()) }) {
                guard let narrowed = try? signer.narrowed(advert, to: g.models) else { continue }
                message = .advert(narrowed)
            }
            mail.send(message, to: device, ttl: ttl, collapseKey: courier.collapseKey(AdvertSigner.advertKind, to: device.signingKey),
                      durable: false)
        }
        log("advert \(advert.sequence): \(advert.models.count) model(s) to \(recipients.count) device(s)")
    }

    /// Mails the current roster to every sibling. Only the holder of the account key does:
    /// a Homebase that joined never sends a roster of its own. On the `pulse` the same roster is
    /// sealed again (same collapse key: it replaces the one waiting), so a mailbox always holds
    /// one young enough to open, however long its device was away.
    func publishRoster(pulse: Bool = false) {
        guard holdsAccountKey else { return }
        let (up, roster, siblings) = state.withLock { s in (s.publishing.linkState.isConnected, s.membership.roster, Array(s.membership.siblings.values)) }
        guard up, let roster else { return }
        if pulse {
            for device in siblings {
                mail.send(.roster(roster), to: device, ttl: configuration.rosterTTL,
                          collapseKey: courier.collapseKey(AdvertSigner.rosterKind, to: device.signingKey))
            }
            return
        }
        let removed = state.withLock { s in
            s.publishing.rosterDue = false; s.publishing.rosterSent = roster.version
            defer { s.publishing.removed = [:] }
            return Array(s.publishing.removed.values)
        }
        let ttl = configuration.rosterTTL
        for device in siblings + removed {
            mail.send(.roster(roster), to: device, ttl: ttl, collapseKey: courier.collapseKey(AdvertSigner.rosterKind, to: device.signingKey))
        }
        log("roster \(roster.version) to \(siblings.count) sibling(s)" + (removed.isEmpty ? "" : " and \(removed.count) removed device(s)"))
    }

    /// At start: the stored runtimes are verified again; with none, the default address is tried.
    func verifyAtStart() async {
        if state.withLock({ $0.offer.runtimes.isEmpty }) {
            do {
                try await verifier.add(url: configuration.defaultRuntimeURL)
                log("runtime found at the default address")
            } catch {
                log("no runtime configured, and none at the default address: \(error)")
            }
            _ = try? reload()
            publishAdvert(toGrantees: true)
            return
        }
        await reverify()
    }

    /// Probes every stored runtime; a change is announced to everyone, a plain re-verification
    /// to grantees (siblings get the next pulse).
    func reverify() async {
        do {
            _ = try await verifier.reverifyAll()
            let changed = try reload()
            runtimesVerified()
            if changed { log("runtime availability or models changed") }
            publishAdvert(toSiblings: changed, toGrantees: true)
        } catch {
            log("re-verification: \(error)")
        }
    }

    var verifier: RuntimeVerifier {
        var v = RuntimeVerifier(store: store)
        v.timeouts = configuration.probeTimeouts
        v.trialTimeouts = configuration.trialTimeouts
        return v
    }
}
