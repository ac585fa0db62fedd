import Sealing
import Signing
import Wire

/// Makes this host's adverts: the next persisted sequence number, the catalog's models, an
/// Ed25519 signature by the host key (the device's signing key) over `signedBytes()`.
struct AdvertSigner: Sendable {
    let identity: DeviceIdentity
    let store: HostStore

    /// Kinds of the mail this host sends with a collapse key (`Courier.collapseKey` makes the key
    /// opaque): the relay keeps only the newest stored frame per (sender, recipient, key), so
    /// adverts and rosters never pile up for an offline device.
    static let advertKind = "advert"
    static let rosterKind = "roster"
    static let awayKind = "away"

    func next(models: [AppMessage.ModelInfo], nowMs: Int64) throws(HomebaseError) -> AppMessage.Advert {
        let sequence = try store.nextAdvertSequence(nowMs: nowMs, modelCount: models.count)
        var advert = AppMessage.Advert(hostKey: identity.signingKey.publicKey,
                                       sequence: sequence, timestampMs: UInt64(max(nowMs, 0)), models: models)
        try sign(&advert)
        return advert
    }

    /// "Asleep since now" for `advert` (the one listing no models), signed by the host key.
    func away(for advert: AppMessage.Advert, nowMs: Int64) -> AppMessage.Away {
        var away = AppMessage.Away(hostKey: advert.hostKey, advertSequence: advert.sequence, sinceMs: UInt64(max(nowMs, 0)))
        away.signature = Bytes64(unchecked: identity.signingKey.sign(away.signedBytes()))
        return away
    }

    /// The same advert (same sequence) listing only `tags`, signed again.
    func narrowed(_ advert: AppMessage.Advert, to tags: [String]) throws(HomebaseError) -> AppMessage.Advert {
        var out = advert
        out.models = advert.models.filter { tags.contains($0.tag) }
        try sign(&out)
        return out
    }

    private func sign(_ advert: inout AppMessage.Advert) throws(HomebaseError) {
        do {
            advert.signature = Bytes64(unchecked: identity.signingKey.sign(try advert.signedBytes()))
        } catch {
            throw .storage("advert does not encode: \(error)")
        }
    }
}

extension AppMessage.Advert {
    /// True when `hostKey` signed exactly these bytes.
    public func verifies() -> Bool {
        guard let bytes = try? signedBytes() else { return false }
        return hostKey.isValidSignature(signature.bytes, for: bytes)
    }
}
