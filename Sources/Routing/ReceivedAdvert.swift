import Basics
import Signing
import Wire

/// An accepted advert and when it was received, on the receiver's clock.
public struct ReceivedAdvert: Sendable, Equatable {
    public var advert: AppMessage.Advert
    /// The receiver's clock at receipt minus the relay's held time. The host's own
    /// `timestampMs` never enters it: a host clock ahead cannot make an advert younger.
    public var receiptMs: Int64

    public init(advert: AppMessage.Advert, receiptMs: Int64) {
        self.advert = advert
        self.receiptMs = receiptMs
    }

    /// The advertised model tags.
    public var modelTags: [String] { advert.models.map(\.tag) }

    /// The tags of models that chat (embedding-only models left out).
    public var chatModelTags: [String] {
        advert.models.filter { $0.capabilities.contains(.completion) || !$0.capabilities.contains(.embedding) }.map(\.tag)
    }

    /// How far the host's clock is ahead of ours at receipt (negative: behind). For logs only.
    public var hostClockSkewMs: Int64 { Int64(clamping: advert.timestampMs) &- receiptMs }
}

extension AppMessage.Advert {
    /// Checks the Ed25519 signature over `signedBytes()` by `hostKey`, and that the advert
    /// names that key as its host.
    func verify(from hostKey: PublicKey) throws(RoutingError) {
        guard self.hostKey == hostKey else {
            throw .wrongHost(expected: shortKey(hostKey), got: shortKey(self.hostKey))
        }
        let message: [UInt8]
        do {
            message = try signedBytes()
        } catch {
            throw .malformedAdvert(error.description)
        }
        guard hostKey.isValidSignature(signature.bytes, for: message) else { throw .badSignature }
    }
}
