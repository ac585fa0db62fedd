import Foundation
import CSodium
import Sealing
import Signing
import Wire

/// A one-time pairing code: everything a new device needs to join the account through the
/// relay, in one line a person pastes (or types: Crockford base32, case-insensitive).
///
///     hbpair1-<base32 of:>
///     version u8 (1) | flags u8 (bit 0: pin follows, bit 1: alternates follow) | expires ms u64
///     | code id 8 | secret 32 | inviter signing key 32 | inviter hpke key 32 | [pin 32]
///     | relay url str16 | [alternates: list<str16>, <= 8 URLs] | checksum 4
///
/// checksum = SHA-256("homebase-pair-code-v1" || 0x00 || every byte before it), first 4 bytes:
/// a mistyped code fails here, before any network. The secret (256 bits) is what the relay
/// never learns; the pinned inviter keys are who the new device talks to. Holds a secret: its
/// description redacts it; never log `text`.
public struct PairingCode: Sendable, Equatable, CustomStringConvertible {
    public static let prefix = "hbpair1-"
    public static let version: UInt8 = 1

    public var relayURL: String
    /// SHA-256 of the relay's certificate when it is pinned (a self-signed relay).
    public var pin: [UInt8]?
    public var expiresMs: Int64
    public var codeID: Bytes8
    public var secret: Secret32
    public var inviterSigningKey: PublicKey
    public var inviterHPKEKey: HPKE.PublicKey
    /// Other nodes of the relay's cluster (docs/CLUSTER.md "Devices"); none: flag bit 1 clear,
    /// the code is the single-URL format byte for byte.
    public var alternates: [String]

    public init(relayURL: String, pin: [UInt8]? = nil, expiresMs: Int64, codeID: Bytes8, secret: Secret32,
                inviterSigningKey: PublicKey, inviterHPKEKey: HPKE.PublicKey, alternates: [String] = []) {
        self.relayURL = relayURL; self.pin = pin; self.expiresMs = expiresMs; self.codeID = codeID
        self.secret = secret; self.inviterSigningKey = inviterSigningKey; self.inviterHPKEKey = inviterHPKEKey
        self.alternates = Array(alternates.prefix(Limits.maxAlternates))
    }

    /// A fresh code: random id and secret.
    public static func issue(relayURL: String, alternates: [String] = [], pin: [UInt8]? = nil, expiresMs: Int64,
                             inviter: DeviceRecord) -> PairingCode {
        PairingCode(relayURL: relayURL, pin: pin, expiresMs: expiresMs, codeID: Bytes8(unchecked: randomBytes(count: 8)),
                    secret: Secret32(unchecked: randomBytes(count: 32)), inviterSigningKey: inviter.signingKey,
                    inviterHPKEKey: inviter.hpkeKey, alternates: alternates)
    }

    public var description: String { "pairing code \(codeID.hex) for \(relayURL) (secret redacted)" }

    /// The code as a person sees it.
    public var text: String {
        var b: [UInt8] = [Self.version, (pin == nil ? 0 : 1) | (alternates.isEmpty ? 0 : 2)]
        b += bigEndian(UInt64(bitPattern: expiresMs))
        b += codeID.bytes + secret.bytes + inviterSigningKey.bytes + inviterHPKEKey.bytes
        if let pin { b += pin }
        func str16(_ s: String) {
            let u = Array(s.utf8.prefix(Int(UInt16.max)))
            b += [UInt8(u.count >> 8), UInt8(u.count & 0xff)] + u
        }
        str16(relayURL)
        let more = alternates.prefix(Limits.maxAlternates)
        if !more.isEmpty {
            b += [0, UInt8(more.count)]
            for a in more { str16(a) }
        }
        b += Self.checksum(b)
        return Self.prefix + Base32.encode(b)
    }

    /// Parses a code as pasted or typed (spaces, dashes and case do not matter).
    public init(parsing raw: String) throws(PairingError) {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.lowercased().hasPrefix(Self.prefix) else {
            throw .notACode(trimmed.isEmpty ? "it is empty" : "it does not start with \(Self.prefix)")
        }
        guard let b = Base32.decode(String(trimmed.dropFirst(Self.prefix.count))), b.count > 4 + 2 else {
            throw .mistyped
        }
        let body = Array(b.dropLast(4))
        guard Self.checksum(body) == Array(b.suffix(4)) else { throw .mistyped }
        guard body[0] == Self.version else { throw .unsupportedVersion(body[0]) }
        var at = 2
        func take(_ n: Int) throws(PairingError) -> [UInt8] {
            guard at + n <= body.count else { throw .mistyped }
            defer { at += n }
            return Array(body[at..<at + n])
        }
        let expires = try take(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        codeID = Bytes8(unchecked: try take(8))
        secret = Secret32(unchecked: try take(32))
        guard let signing = PublicKey(bytes: try take(32)), let hpke = HPKE.PublicKey(bytes: try take(32)) else {
            throw .mistyped
        }
        inviterSigningKey = signing
        inviterHPKEKey = hpke
        pin = body[1] & 1 == 1 ? try take(32) : nil
        func str16(limit: Int) throws(PairingError) -> String {
            let len = try take(2).reduce(0) { $0 << 8 | Int($1) }
            guard len <= limit, let s = String(validating: try take(len), as: UTF8.self) else { throw .mistyped }
            return s
        }
        relayURL = try str16(limit: Int(UInt16.max))
        var more: [String] = []
        if body[1] & 2 == 2 {
            let n = try take(2).reduce(0) { $0 << 8 | Int($1) }
            guard (1...Limits.maxAlternates).contains(n) else { throw .mistyped }
            for _ in 0..<n { more.append(try str16(limit: Limits.maxAlternateURL)) }
        }
        guard at == body.count else { throw .mistyped }
        alternates = more
        expiresMs = Int64(bitPattern: expires)
    }

    static func checksum(_ bytes: [UInt8]) -> [UInt8] {
        Array(PairingProofs.sha256(Array("homebase-pair-code-v1".utf8) + [0] + bytes).prefix(4))
    }
}

func bigEndian(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8((v >> (56 - 8 * UInt64($0))) & 0xff) } }
