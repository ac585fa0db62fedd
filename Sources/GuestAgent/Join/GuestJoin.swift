import Foundation
import PeerLink
import Routing
import Sealing
import Signing
import Wire
import Basics

/// `guest join INVITE`, step by step: read and check the invite here (mangled, expired, a
/// record that does not match its keys), keep the host as `invited` (never routed), then send
/// the `join` as an introduction and wait for the host's answer by mail (`JoinMail` applies it).
public enum GuestJoin {
    /// An invite that decoded and whose host record verifies and names the invite's keys.
    public struct Checked: Sendable {
        public let invite: AppMessage.Invite
        public let host: DeviceRecord
    }

    /// What the host said within the wait.
    public enum Answer: Sendable, Equatable {
        case joined(models: [String])
        /// Refused or revoked, with the host's reason.
        case refused(String)
        /// Nothing yet: the host may be offline or waiting for approval; the grant comes by mail.
        case noAnswerYet
    }

    /// Decodes and checks `text` against the clock (`nowMs`, Unix ms).
    public static func check(_ text: String, nowMs: Int64) throws(GuestError) -> Checked {
        let decoded: (invite: AppMessage.Invite, hostRecord: [UInt8])
        do { decoded = try InviteCode.decode(text) } catch {
            if case .badInviteCode(let why) = error { throw .join("mangled invite: \(why)") }
            throw .join("mangled invite: \(error) (copy the whole hb-invite-… text again)")
        }
        let invite = decoded.invite
        guard let host = try? DeviceRecord(encoded: decoded.hostRecord) else {
            throw .join("mangled invite: the host's device record in it does not verify")
        }
        guard host.signingKey == invite.hostSigningKey, host.hpkeKey.bytes == invite.hostHPKEKey.bytes else {
            throw .join("mangled invite: the host's record names other keys than the invite")
        }
        do {
            var link = try PeerLink.Configuration(relayURL: invite.relayURL)
            try link.addAlternates(invite.alternates)
        } catch {
            throw .join("mangled invite: its relay \(([invite.relayURL] + invite.alternates).joined(separator: ", ")) "
                        + "is not a ws:// or wss:// URL (every node of one cluster with one scheme): \(error)")
        }
        guard UInt64(max(0, nowMs)) < invite.expiresMs else {
            let when = Date(timeIntervalSince1970: Double(invite.expiresMs) / 1000)
            throw .join("this invite expired at \(when): ask the Homebase's owner for a new one (homebase share)")
        }
        return Checked(invite: invite, host: host)
    }

    /// Makes this guest ready to send the join: its identity (created when missing, named
    /// `name`), the host kept as `invited` with its record, its relay and the relay's certificate
    /// pin (`pin`, nil: the system roots) on file. The invite's relay is the joined Homebase's,
    /// not the account's: `relay.json` is left as it is, whichever relay it names (or none).
    /// Returns the identity and whether it was created.
    public static func prepare(_ checked: Checked, context: GuestContext, name: String,
                               pin: String? = nil) throws -> (DeviceIdentity, Bool) {
        let paths = context.paths
        if let pin {
            do { _ = try PeerLink.Trust.pinned(hex: pin) } catch { throw GuestError.join("--pin: \(error)") }
        }
        let created: Bool
        let identity: DeviceIdentity
        if FileManager.default.fileExists(atPath: paths.identity + "/" + DeviceIdentity.signingKeyFile) {
            identity = try DeviceIdentity.load(from: paths.identity)
            created = false
        } else {
            identity = try DeviceIdentity.generate(name: name, now: UInt64(wallClockMs()))
            try identity.save(to: paths.identity)
            created = true
        }
        try context.joined.addInvite(hostKey: checked.host.signingKey, hpkeKey: checked.host.hpkeKey.bytes,
                                     relayURL: checked.invite.relayURL, models: checked.invite.models)
        let files = JoinedHostFiles(paths: paths)
        try files.save(checked.host)
        files.setNote(checked.host.signingKey, nil)
        try files.setPin(checked.host.signingKey, pin)
        try files.setToken(checked.host.signingKey, checked.invite.admissionToken)
        try files.setAlternates(checked.host.signingKey, checked.invite.alternates)
        return (identity, created)
    }

    /// Sends the join through the link to the invite's relay (an introduction, as mail: it
    /// waits at the relay if the host is offline) and waits up to `wait` for the host's answer.
    public static func send(_ checked: Checked, identity: DeviceIdentity, accountName: String, links: GuestLinks,
                            context: GuestContext, wait: Duration) async throws -> Answer {
        guard let link = links.link(forRelay: checked.invite.relayURL) else {
            throw GuestError.join("no link to the invite's relay \(checked.invite.relayURL) opened (see guest.log)")
        }
        let host = checked.host.signingKey
        let proof = InviteProof.make(secret: checked.invite.inviteSecret.bytes, host: host,
                                     joinerRecord: identity.record.encoded)
        let join = AppMessage.join(.init(secretProof: Bytes32(unchecked: proof), deviceRecord: identity.record.encoded,
                                         accountName: accountName))
        // A `guest serve` of this device may link the invite's relay as soon as `prepare` wrote
        // the invite, replacing this link (one connection per device key). The join is mail, kept
        // in the outbox: take the link back so it goes out; serve retakes its own link later.
        let retaker = Task {
            for _ in 0..<3 {
                while !Task.isCancelled, link.refusal != .replaced { try? await Task.sleep(for: .milliseconds(50)) }
                guard !Task.isCancelled else { return }
                links.retakeReplaced(after: .zero)
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        defer { retaker.cancel() }
        let sent = try await withDeadline(wait) {
            try await link.courier.introduce(join, toSigningKey: host, hpkeKey: checked.host.hpkeKey, deliveryClass: .mail)
        }
        guard let sent else {
            var why = "the relay \(checked.invite.relayURL) did not take the join within \(wait): \(link.linkDescription)"
            if case .certificate = link.refusal {
                why += "\n(invites carry no pin: for a relay with a self-signed certificate, ask its owner for the "
                    + "certificate's SHA-256 and join with --pin SHA256)"
            }
            throw GuestError.join(why)
        }
        guard sent == .stored else { throw GuestError.join("the Homebase's mailbox at the relay is full: try again later") }
        let deadline = ContinuousClock.now + wait
        while ContinuousClock.now < deadline {
            if let record = try context.joined.joinedRecord(host) {
                switch record.state {
                case .joined: return .joined(models: record.models)
                case .revoked: return .refused(JoinedHostFiles(paths: context.paths).note(host) ?? "refused by the host")
                case .invited: break
                }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return .noAnswerYet
    }

    static func sameRelay(_ a: String, _ b: String) -> Bool {
        guard let x = try? RelayURL(parsing: a), let y = try? RelayURL(parsing: b) else { return a == b }
        return x == y
    }

    /// `body`'s value, or nil when `limit` passes first (the body is cancelled).
    static func withDeadline<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask { try await Task.sleep(for: limit); return nil }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }
}
