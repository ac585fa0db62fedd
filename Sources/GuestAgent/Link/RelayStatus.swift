import Basics
import Foundation
import PeerLink
import Routing
import Sealing

/// The relay part of `guest status`: the link, the last mail handled, the own Homebase's key and
/// its last advert. One value feeds both `--json` (under `relay`) and the `--explain` lines, so
/// the two say the same things. Public keys only; the text shows their hex prefix.
public struct RelayStatus: Sendable, Equatable, Codable {
    /// The relay URL of `relay.json`; nil when no relay is configured.
    public var url: String?
    /// `none` (no relay configured), `not-opened` (no device identity), `replay-store-unreadable`
    /// (`replay.sqlite3` cannot be opened), `connected`,
    /// `connecting`, `waiting`, `refused`, `restarting`, `stopped`, `serve` (a running `guest serve` holds it).
    public var linkState: String
    /// The link in words, as the text shows it.
    public var link: String
    /// The last mail handled, in words (never content); nil when none this run.
    public var lastMail: String?
    /// The own Homebase's device key (hex): `homebase.key`, else the record in `relay.json`.
    public var homebaseKey: String?
    /// The own Homebase's last advert: age in seconds at this status, host key, sequence, models.
    public var advertAgeSeconds: Int64?
    public var advertHost: String?
    public var advertSequence: UInt64?
    public var advertModels: [String]?
    /// One line per link to a joined Homebase's relay (not the account's): whose, and its state.
    public var joinedLinks: [String] = []

    public static func gather(_ context: GuestContext, _ links: GuestLinks?) -> RelayStatus {
        let link = links?.account
        let setting = try? RelayFile(path: context.paths.relaySetting).read()
        var s = RelayStatus(url: setting?.url, linkState: "none",
                            link: "none configured (guest relay set URL --homebase RECORD)")
        if let link {
            s.linkState = Self.name(link.courier.link.state)
            s.link = link.linkDescription
        } else if links?.replayFailure != nil {
            // Without its replay state a link would accept replays: none is opened, and the file is kept.
            let path = context.paths.replayStore
            s.linkState = "replay-store-unreadable"
            s.link = "not opened: the replay store \(path) cannot be read; move it aside "
                + "(mv \(path) \(path).damaged) and run again: a new, empty one is made"
        } else if setting != nil {
            s.linkState = "not-opened"
            s.link = "not opened (no device identity? run guest init)"
        }
        s.lastMail = links?.all.compactMap(\.lastMail).last
        s.joinedLinks = links?.statusLines.filter { $0.hasPrefix("joined relay:") } ?? []
        s.homebaseKey = (HomebaseKeyFile(path: context.paths.homebaseKey).read() ?? setting?.homebaseRecord?.signingKey)?.hex
        let advert = (try? AccountAdverts(account: context.account, database: context.routingDatabase).latestOwnAdvert()) ?? nil
        if let advert {
            s.advertAgeSeconds = max(0, SystemWallClock().nowMs() - advert.receiptMs) / 1000
            s.advertHost = hexString(advert.advert.hostKey.bytes)
            s.advertSequence = advert.advert.sequence
            s.advertModels = advert.modelTags
        }
        return s
    }

    static func name(_ state: LinkState) -> String {
        switch state {
        case .connected: "connected"
        case .connecting, .authenticating: "connecting"
        case .waiting: "waiting"
        case .refused: "refused"
        case .relayRestarting: "restarting"
        case .stopped: "stopped"
        }
    }

    /// The lines `guest status` prints.
    public var lines: String {
        var s = "relay link:    \(link)\n"
        for line in joinedLinks { s += line + "\n" }
        if let homebaseKey { s += "homebase key:  \(homebaseKey.prefix(16))…\n" }
        if let age = advertAgeSeconds, let host = advertHost, let sequence = advertSequence {
            s += "last advert:   \(age) s old, from Homebase \(host.prefix(16))… (sequence \(sequence)), "
                + "models: \((advertModels ?? []).joined(separator: ", "))\n"
        } else {
            s += "last advert:   none received from the own Homebase\n"
        }
        if let lastMail { s += "last mail:     \(lastMail)\n" }
        return s
    }
}
