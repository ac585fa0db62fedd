import Sealing
import Signing
import Wire

/// Makes this host's adverts: the next persisted sequence number, the catalog's models, an
/// Ed25519 signature by the host key (the device's signing key) over `signedBytes()`.
struct AdvertSigner: Sendable {
    let identity: DeviceIdentity
    let store: HostStore

    /// Collapse keys of the mail this host sends: the relay keeps only the newest stored frame
    /// per (sender, recipient, key), so adverts and rosters never pile up for an offline device.
    static let advertCollapseKey = Array("advert".utf8)
    static let rosterCollapseKey = Array("roster".utf8)

    func next(models: [AppMessage.ModelInfo], nowMs: Int64) throws(HomebaseError) -> AppMessage.Advert {
        let sequence = try store.nextAdvertSequence(nowMs: nowMs, modelCount: models.count)
        var advert = AppMessage.Advert(hostKey: Bytes32(unchecked: identity.signingKey.publicKey.bytes),
                                       sequence: sequence, timestampMs: UInt64(max(nowMs, 0)), models: models)
        do {
            advert.signature = Bytes64(unchecked: identity.signingKey.sign(try advert.signedBytes()))
        } catch {
            throw .storage("advert does not encode: \(error)")
        }
        return advert
    }
}

extension AppMessage.Advert {
    /// True when `hostKey` signed exactly these bytes.
    public func verifies() -> Bool {
        guard let key = PublicKey(bytes: hostKey.bytes), let bytes = try? signedBytes() else { return false }
        return key.isValidSignature(signature.bytes, for: bytes)
    }
}
