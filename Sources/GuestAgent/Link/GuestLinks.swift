import Basics
import Courier
import Foundation
import PeerLink
import RelayRouting
import Routing
import Sealing
import Signing
import Synchronization

/// Every relay link of one command: the account's (`relay.json`) and one per other relay a
/// joined Homebase lives on (its invite named it; invited or joined, not revoked). All feed the
/// same `GuestMail`, their backlogs are awaited together, and the installed factory sends each
/// joined Homebase's requests over the courier of its own relay. A relay that is down costs no
/// more than the existing waits: its requests fail at once (`unreachable`), the router falls back.
///
///     let links = try GuestLinks.open(context)   // nil: no relay at all
///     await links?.waitForBacklog()
///     ...
///     links?.stop()
public final class GuestLinks: Sendable {
    /// The link to the account's relay (`relay.json`), nil when none is set.
    public let account: GuestLink?
    /// Why a link could not be made (a malformed setting): for stderr, never fatal.
    public let failures: [String]
    /// Why no link was opened because `replay.sqlite3` could not be opened (for `guest status`).
    public let replayFailure: String?
    /// The joined Homebases' links and names: `refresh()` adds the relay of a Homebase joined
    /// while this process runs (`guest join` beside `guest serve`).
    let joinedState: Mutex<(links: [GuestLink], hosts: [String: [String]])>
    /// What `refresh()` needs to open more links; nil for the no-relay value.
    let opener: Opener?
    let watcher = Mutex<Task<Void, Never>?>(nil)
    /// When each replaced link was first seen replaced (`retakeReplaced`).
    let replacedSince = Mutex<[ObjectIdentifier: ContinuousClock.Instant]>([:])

    init(account: GuestLink?, joined: [GuestLink], failures: [String], hosts: [String: [String]], opener: Opener? = nil,
         replayFailure: String? = nil) {
        self.account = account; self.failures = failures; self.opener = opener; self.replayFailure = replayFailure
        joinedState = Mutex((joined, hosts))
    }

    /// Links to the relays of joined Homebases that are not the account's, one per relay.
    public var joined: [GuestLink] { joinedState.withLock { $0.links } }
    var hosts: [String: [String]] { joinedState.withLock { $0.hosts } }

    public var all: [GuestLink] { (account.map { [$0] } ?? []) + joined }

    /// Opens (and starts) every link this device has a reason for, and links their Couriers into
    /// the context's brains (`GuestBrains.linkRelay`). Nil when there is no relay at all or no
    /// device identity.
    public static func open(_ context: GuestContext, options: GuestLink.Options = GuestLink.Options()) throws -> GuestLinks? {
        let paths = context.paths, log = context.log
        var failures: [String] = []
        var accountSetting: RelayFile.Setting?
        do { accountSetting = try RelayFile(path: paths.relaySetting).read() } catch {
            failures.append("\(error)")  // the joined Homebases' relays still link
        }
        let relays = JoinedRelay.all(context).filter { r in !(accountSetting.map { GuestJoin.sameRelay($0.url, r.url) } ?? false) }
        guard accountSetting != nil || !relays.isEmpty else { return failures.isEmpty ? nil : GuestLinks(failures) }
        guard FileManager.default.fileExists(atPath: paths.identity + "/" + DeviceIdentity.signingKeyFile) else {
            log.write("relay: no device identity (guest init): not connecting")
            return nil
        }
        let identity = try DeviceIdentity.load(from: paths.identity)
        let roster = AccountKeyFile(path: paths.accountKey).read().flatMap { RosterFile(path: paths.roster).read(account: $0) }
        let directory = GuestDirectory(me: identity.signingKey.publicKey, bootstrap: accountSetting?.homebaseRecord,
                                       roster: roster?.records ?? [])
        let peers = JoinedDirectory(account: directory, joined: JoinedHostFiles(paths: paths).all())
        let mail = GuestMail.linked(context, directory: directory)
        let replay: ReplayStore
        do { replay = try ReplayStore(path: paths.replayStore) } catch {
            log.write("relay: \(error)")  // a damaged store is reported, never reset: no relay link without it
            return GuestLinks(account: nil, joined: [], failures: failures + ["\(error)"], hosts: [:],
                              replayFailure: "\(error)")
        }
        var options = options
        options.requestShaping = context.requestShaping
        let opener = Opener(context: context, accountURL: accountSetting?.url, identity: identity, directory: directory,
                            peers: peers, mail: mail, options: options, replay: replay)
        func make(_ setting: RelayFile.Setting, _ role: GuestLink.Role) -> GuestLink? {
            do { return try opener.make(setting, role) } catch {
                failures.append("\(setting.url): \(error)")
                return nil
            }
        }
        let account = accountSetting.flatMap { make($0, .account) }
        let joined = relays.compactMap { make($0.setting, .joined) }
        let links = GuestLinks(account: account, joined: joined, failures: failures,
                               hosts: Dictionary(relays.map { (relayKey($0.url), $0.hosts) }, uniquingKeysWith: { a, _ in a }),
                               opener: opener)
        guard let fallback = links.all.first?.courier else { return links }
        // Each joined Homebase over its relay's courier (looked up per request: a relay linked
        // later by `refresh()` serves too); the account's relay is the default.
        context.factory.linkRelay(RelayedHomebases(courier: fallback, directory: peers,
                                                   joinedCourier: { [links] in links.link(forRelay: $0.relayURL)?.courier },
                                                   limits: options.watchdog, log: { log.write("homebase: \($0)") }))
        for link in links.all { link.start() }
        return links
    }

    convenience init(_ failures: [String]) { self.init(account: nil, joined: [], failures: failures, hosts: [:]) }

    /// The link to `url` (the same relay spelled alike or not), nil when none is open.
    public func link(forRelay url: String) -> GuestLink? {
        all.first { GuestJoin.sameRelay($0.setting.url, url) }
    }

    /// Waits for every link's backlog at once: the longest wait is `backlogWait`, not its sum.
    public func waitForBacklog() async {
        await withTaskGroup(of: Void.self) { group in
            for link in all { group.addTask { await link.waitForBacklog() } }
        }
    }

    /// One line per link for `guest status`: whose relay, and connected or why not.
    public var statusLines: [String] {
        var lines = account.map { ["relay link:    \($0.linkDescription)"] } ?? []
        for link in joined {
            let names = hosts[relayKey(link.setting.url)] ?? []
            lines.append("joined relay:  \(link.linkDescription) (for \(names.joined(separator: ", ")))")
        }
        return lines
    }

    /// Stops every link (and the watch for new joins). Final.
    public func stop() {
        watcher.withLock { $0?.cancel(); $0 = nil }
        for link in all { link.stop() }
    }
}

/// A relay a joined Homebase (invited or joined, not revoked) lives on, with the pin given at
/// `guest join --pin` (nil: the system roots) and the Homebases there, by name.
struct JoinedRelay: Equatable {
    var url: String
    var pin: String?
    var hosts: [String]
    /// An admission token one of its invites carried (the relay binds it to this device).
    var token: [UInt8]?
    /// Other nodes of that relay's cluster its invites named (`<host key hex>.alternates`).
    var alternates: [String] = []

    /// What its link dials: the URL, then the alternates, with the pin.
    var setting: RelayFile.Setting {
        RelayFile.Setting(url: url, pin: pin, alternates: alternates.isEmpty ? nil : alternates)
    }

    static func all(_ context: GuestContext) -> [JoinedRelay] {
        let files = JoinedHostFiles(paths: context.paths)
        let names = Dictionary(files.all().map { ($0.signingKey, $0.name) }, uniquingKeysWith: { a, _ in a })
        var relays: [JoinedRelay] = []
        let records = ((try? context.joined.all()) ?? []).filter { $0.state != .revoked }
        for record in records.sorted(by: { $0.relayURL < $1.relayURL }) {
            let name = "\"\(names[record.hostKey] ?? "?")\" \(shortKey(record.hostKey.bytes))"
            let pin = files.pin(record.hostKey), token = files.token(record.hostKey)
            let more = files.alternates(record.hostKey)
            if let i = relays.firstIndex(where: { GuestJoin.sameRelay($0.url, record.relayURL) }) {
                relays[i].hosts.append(name)
                relays[i].pin = relays[i].pin ?? pin
                relays[i].token = relays[i].token ?? token
                relays[i].alternates += more.filter { a in !relays[i].alternates.contains { GuestJoin.sameRelay($0, a) } }
            } else {
                relays.append(JoinedRelay(url: record.relayURL, pin: pin, hosts: [name], token: token, alternates: more))
            }
        }
        return relays
    }
}

/// A relay URL as one key however it is spelled (`ws://h:80/` and `ws://h` alike).
func relayKey(_ url: String) -> String { (try? RelayURL(parsing: url))?.description ?? url }
