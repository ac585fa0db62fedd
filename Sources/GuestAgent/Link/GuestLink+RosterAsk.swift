import Courier
import Sealing
import Wire

// A guest that saw no roster in its backlog asks the account's Homebase (the one it paired
// with, else the own Homebase of the adverts) for a roster newer than the version it holds:
// `roster-ask`, live. The Homebase mails its roster only when it is newer, so a guest whose
// roster is current costs one small envelope per connection and nothing more.
extension GuestLink {
    func askForRoster() {
        let paths = mail.paths
        let held = AccountKeyFile(path: paths.accountKey).read().flatMap { RosterFile(path: paths.roster).read(account: $0) }
        guard let homebase = setting.homebaseRecord ?? HomebaseKeyFile(path: paths.homebaseKey).read().flatMap(directory.record(for:))
        else { return }
        let courier = courier, log = log, version = held?.version ?? 0
        Task {
            let outcome = await courier.send(.rosterAsk(version: version), to: homebase)
            if outcome != .sent { log.write("relay: asking for a roster newer than \(version): \(outcome)") }
        }
    }
}
