import Foundation
import Routing

/// The relay part of `guest status`: one line per link (`links`), and with `--explain` the own
/// Homebase's last advert (host, age, models). Keys appear as their public hex prefix only.
public enum RelayStatus {
    /// One line per relay link: the account's, then each joined Homebase's relay.
    public static func linkLines(_ context: GuestContext, _ links: GuestLinks?) -> String {
        var s = ""
        let setting = try? RelayFile(path: context.paths.relaySetting).read()
        if links?.account == nil {
            s += setting == nil ? "relay link:    none configured (guest relay set URL --homebase RECORD)\n"
                : "relay link:    not opened (no device identity? run guest init)\n"
        }
        for line in links?.statusLines ?? [] { s += line + "\n" }
        return s
    }

    /// The own Homebase's last advert and the last mail handled (`status --explain`).
    public static func lines(_ context: GuestContext, _ links: GuestLinks?) -> String {
        var s = ""
        let advert = (try? AccountAdverts(account: context.account, database: context.routingDatabase).latestOwnAdvert()) ?? nil
        if let advert {
            let age = max(0, SystemWallClock().nowMs() - advert.receiptMs) / 1000
            let host = String(HexBytes.encode(advert.advert.hostKey.bytes).prefix(16)) + "…"
            s += "last advert:   \(age) s old, from Homebase \(host) (sequence \(advert.advert.sequence)), "
                + "models: \(advert.modelTags.joined(separator: ", "))\n"
        } else {
            s += "last advert:   none received from the own Homebase\n"
        }
        if let mail = links?.all.compactMap(\.lastMail).last { s += "last mail:     \(mail)\n" }
        return s
    }
}
