import Routing
import Signing

extension HostManager {
    /// The Homebase `guest host` talks to: the account's own (its record from `relay.json`, else
    /// its latest advert's key), else the one joined Homebase (a grantee: the host will refuse,
    /// and says so). `choose`: a hex prefix of the host key, to pick among several.
    public static func target(_ context: GuestContext, links: GuestLinks?, choose: String? = nil,
                              timeout: Duration = defaultTimeout) -> Result<HostManager, Failure> {
        guard let links else { return .failure(.unreachable("no relay is set (guest relay set URL)")) }
        var candidates: [(PublicKey, GuestLink)] = []
        if let account = links.account {
            let own = account.setting.homebaseRecord?.signingKey
                ?? ((try? AccountAdverts(account: context.account, database: context.routingDatabase).latestOwnAdvert()) ?? nil)
                    .map(\.advert.hostKey)
            if let own { candidates.append((own, account)) }
        }
        for joined in (try? context.joined.all()) ?? [] where joined.state == .joined {
            if let link = links.link(forRelay: joined.relayURL) { candidates.append((joined.hostKey, link)) }
        }
        if let choose {
            candidates = candidates.filter { $0.0.hex.hasPrefix(choose.lowercased()) }
        } else if let first = candidates.first, links.account != nil, first.1 === links.account {
            candidates = [first]  // the own Homebase first
        }
        guard let (key, link) = candidates.first else {
            return .failure(.unreachable(choose.map { "no Homebase with key \($0)… here" }
                                         ?? "no Homebase known yet (guest pair, or guest join)"))
        }
        guard candidates.count == 1 else {
            return .failure(.unreachable("several joined Homebases: say which with --homebase KEY ("
                                         + candidates.map { shortKey($0.0) }.joined(separator: ", ") + ")"))
        }
        let record = link.directory.record(for: key) ?? JoinedHostFiles(paths: context.paths).all().first { $0.signingKey == key }
        return .success(HostManager(hostKey: key, courier: link.courier, record: record, timeout: timeout))
    }
}
