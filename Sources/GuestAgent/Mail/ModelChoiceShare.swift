import Courier
import Foundation
import ModelStore
import Routing
import Signing
import Wire

extension GuestLink {
    /// Records a model choice made on this device and mails it to every sibling of the roster
    /// but the Homebase (which routes nothing). Returns the number of siblings whose mailbox
    /// stored it. Only a person's change calls this; a received choice is never sent on.
    public func share(_ kind: ModelChoiceSync.Kind, _ value: String, context: GuestContext, ttl: Duration = Courier.maxMailTTL) async -> Int {
        let me = courier.identity.signingKey.publicKey
        let choice: AppMessage.ModelChoice
        do {
            choice = try ModelChoiceSync(database: context.routingDatabase).local(kind, value, origin: me,
                                                                                 vision: Self.vision(kind, value, context))
        } catch {
            log.write("model choice: cannot record: \(error)")
            return 0
        }
        // The Homebase: learnt from its adverts, else the record given with `relay set` / pairing.
        let homebase = HomebaseKeyFile(path: context.paths.homebaseKey).read() ?? setting.homebaseRecord?.signingKey
        var stored = 0
        for sibling in directory.siblings where sibling.signingKey != homebase {
            let key = courier.collapseKey(kind.collapseKind, to: sibling.signingKey)
            do {
                if try await courier.sendMail(.modelChoice(choice), to: sibling, ttl: ttl, collapseKey: key) == .stored {
                    stored += 1
                }
            } catch {
                log.write("model choice to \(shortKey(sibling.signingKey)): \(error)")
            }
        }
        log.write("model choice \(choice.sequence) (\(kind.rawValue)) sent to \(stored) sibling(s)")
        return stored
    }
}

extension GuestLink {
    /// Whether the chosen model sees images: a local model with a projector, a Homebase model
    /// whose advert says so.
    static func vision(_ kind: ModelChoiceSync.Kind, _ value: String, _ context: GuestContext) -> Bool {
        switch kind {
        case .local: return ((try? context.modelStore.record(value))?.projector) != nil
        case .ollama:
            let advert = (try? AccountAdverts(account: context.account, database: context.routingDatabase).latestOwnAdvert()) ?? nil
            return advert?.advert.models.first { $0.tag == value }?.capabilities.contains(.vision) ?? false
        case .source: return false
        }
    }
}

/// What a device does with a local model a sibling chose.
public enum LocalModelChoice {
    /// Selects `id` when it is on this device; otherwise records the wish and starts its
    /// download in a detached fetcher (the current model keeps answering; the download outlives
    /// this process), which selects it once it is ready.
    public static func apply(_ id: String, fetch: BackgroundFetch) {
        let store = fetch.store, log = fetch.context.log
        if (try? store.state(id)) == .ready {
            do {
                try store.select(id)
                try store.replaceWishes(with: nil)  // this choice is newer than any wish to select
                log.write("model choice: using \(id)")
            } catch {
                log.write("model choice: \(id): \(error)")
            }
            return
        }
        guard let colon = id.lastIndex(of: ":"), colon != id.startIndex else { return log.write("model choice: \(id) is not REPO:QUANT") }
        log.write("model choice: \(id) is not on this device: downloading it; the current model answers meanwhile")
        fetch.want(id, select: true)
    }
}

extension GuestMail {
    /// The mail handler of a linked command: a sibling's local model choice goes to the
    /// background fetcher.
    static func linked(_ context: GuestContext, directory: GuestDirectory) -> GuestMail {
        var mail = GuestMail(paths: context.paths, directory: directory, database: context.routingDatabase)
        mail.freshness = context.configuration.freshness
        let fetch = BackgroundFetch(context)
        mail.localModelChoice = { LocalModelChoice.apply($0, fetch: fetch) }
        return mail
    }
}
