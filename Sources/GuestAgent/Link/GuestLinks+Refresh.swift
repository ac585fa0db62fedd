import Courier
import Foundation
import PeerLink
import Signing
import Wire
import Synchronization
import Sealing

/// A Homebase joined while the links are open (`guest join` in another terminal while
/// `guest serve` runs): `refresh()` teaches the directory its record and opens a link to its
/// relay when none is open, so the next request can reach it without restarting serve.
extension GuestLinks {
    /// Everything `open` decided once that a later link needs too.
    struct Opener: Sendable {
        let context: GuestContext
        let accountURL: String?
        let identity: DeviceIdentity
        let directory: GuestDirectory
        let peers: JoinedDirectory
        let mail: GuestMail
        let options: GuestLink.Options
        let replay: ReplayStore

        func make(_ setting: RelayFile.Setting, _ role: GuestLink.Role) throws -> GuestLink {
            try GuestLink.make(setting: setting, role: role, identity: identity, directory: directory, peers: peers,
                               mail: mail, options: options, log: context.log, replay: replay, admission: admission(setting, role))
        }

        /// What the link presents to a relay admitting by account: on the account's relay the
        /// proof the pairing brought; on any relay the token an invite for it carried.
        func admission(_ setting: RelayFile.Setting, _ role: GuestLink.Role) -> LinkAdmission {
            let token = JoinedRelay.all(context).first { GuestJoin.sameRelay($0.url, setting.url) && $0.token != nil }?.token
            let account = role == .account ? AccountKeyFile(path: context.paths.accountKey).read() : nil
            let proof = account.flatMap { a in setting.relayProof.map { $0.frame(accountKey: a) } }
            let proofOrigin = setting.relayProof?.origin
            return LinkAdmission(deviceProof: { origin, _ in origin == proofOrigin ? proof : nil }, token: { _ in token })
        }
    }

    /// Reads the joined Homebases again; returns the relays newly linked. A joined relay's link
    /// none of whose Homebases is usable any more (all revoked or removed) is stopped and dropped
    /// (`closed`): a relay keeps no connection for a device that has nothing to do there.
    @discardableResult
    public func refresh() -> [String] {
        refreshed().added
    }

    /// `refresh()`, with the relays whose links were closed.
    func refreshed() -> (added: [String], closed: [String]) {
        guard let opener else { return ([], []) }
        for record in JoinedHostFiles(paths: opener.context.paths).all() { opener.peers.add(record) }
        let relays = JoinedRelay.all(opener.context).filter { r in
            !(opener.accountURL.map { GuestJoin.sameRelay($0, r.url) } ?? false)
        }
        let missing = relays.filter { r in !joined.contains { GuestJoin.sameRelay($0.setting.url, r.url) } }
        var added: [GuestLink] = []
        for r in missing {
            do {
                added.append(try opener.make(r.setting, .joined))
            } catch {
                opener.context.log.write("relay: not linked: \(r.url): \(error)")
            }
        }
        let unused = joinedState.withLock { state -> [GuestLink] in
            let unused = state.links.filter { link in !relays.contains { GuestJoin.sameRelay($0.url, link.setting.url) } }
            state.links.removeAll { link in unused.contains { $0 === link } }
            state.links += added
            state.hosts = Dictionary(relays.map { (relayKey($0.url), $0.hosts) }, uniquingKeysWith: { a, _ in a })
            return unused
        }
        for link in unused {
            link.stop()
            replacedSince.withLock { $0[ObjectIdentifier(link)] = nil }
            opener.context.log.write("relay: link to \(link.setting.url) closed: no joined Homebase there is usable (revoked)")
        }
        for link in added {
            link.start()
            opener.context.log.write("relay: linked to \(link.setting.url) for a Homebase joined meanwhile")
        }
        return (added.map(\.setting.url), unused.map(\.setting.url))
    }

    /// Calls `refresh()` every `interval` until `stop()`: for the long-lived commands (`serve`, `chat`).
    /// `retakeAfter`: a link another guest command of this device replaced (the relay keeps one
    /// connection per device key, and PeerLink never retries a replaced link by itself) is taken
    /// back once it has been replaced that long: for `serve`, which outlives those commands.
    public func watchJoins(every interval: Duration, retakeAfter: Duration? = nil) {
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self, !Task.isCancelled else { return }
                self.refresh()
                if let retakeAfter { self.retakeReplaced(after: retakeAfter) }
            }
        }
        watcher.withLock { $0?.cancel(); $0 = task }
    }

    /// Starts again every link replaced for at least `after`; returns their relays.
    @discardableResult
    func retakeReplaced(after: Duration, now: ContinuousClock.Instant = .now) -> [String] {
        var retaken: [String] = []
        for link in all {
            let id = ObjectIdentifier(link)
            guard case .replaced? = link.refusal else {
                replacedSince.withLock { $0[id] = nil }
                continue
            }
            let since = replacedSince.withLock { seen in
                if let t = seen[id] { return t }
                seen[id] = now
                return now
            }
            guard now - since >= after else { continue }
            replacedSince.withLock { $0[id] = nil }
            link.courier.link.start()
            retaken.append(link.setting.url)
            link.log.write("relay: taking the link to \(link.setting.url) back (another guest command had replaced it)")
        }
        return retaken
    }
}
