import Foundation
import Routing

/// The relay part of `guest status --explain`: the link's state and the own Homebase's last
/// advert (host, age, models). Keys appear as their public hex prefix only.
public enum RelayStatus {
    public static func lines(_ context: GuestContext, _ link: GuestLink?) -> String {
        var s = ""
        let setting = try? RelayFile(path: context.paths.relaySetting).read()
        if let link {
            s += "relay link:    \(link.linkDescription)\n"
        } else if setting == nil {
            s += "relay link:    none configured (guest relay set URL --homebase RECORD)\n"
        } else {
            s += "relay link:    not opened (no device identity? run guest init)\n"
        }
        let advert = (try? AccountAdverts(account: context.account, database: context.routingDatabase).latestOwnAdvert()) ?? nil
        if let advert {
            let age = max(0, SystemWallClock().nowMs() - advert.receiptMs) / 1000
            let host = String(HexBytes.encode(advert.advert.hostKey.bytes).prefix(16)) + "…"
            s += "last advert:   \(age) s old, from Homebase \(host) (sequence \(advert.advert.sequence)), "
                + "models: \(advert.modelTags.joined(separator: ", "))\n"
        } else {
            s += "last advert:   none received from the own Homebase\n"
        }
        if let mail = link?.lastMail { s += "last mail:     \(mail)\n" }
        return s
    }
}
