import Basics
import Foundation
import Sealing
import Signing

/// The device records of other accounts' Homebases this guest joined, one file each:
/// `<data-dir>/joined/<host key hex>.record` (public, from the invite), and beside it
/// `<host key hex>.note`, the last word the host sent (a refusal or revocation reason), and
/// `<host key hex>.pin`, the SHA-256 of its relay's certificate when `guest join --pin` gave one
/// (invites carry no pin: without it the relay's certificate is checked against the system roots).
///
/// The Routing store keeps the joined Homebase's state and models; these records let the
/// Courier open the host's envelopes (grant, adverts, revoke, replies).
public struct JoinedHostFiles: Sendable {
    public let directory: String

    public init(paths: GuestPaths) { directory = paths.dataDirectory + "/joined" }

    func path(_ key: PublicKey, _ ext: String) -> String { directory + "/" + key.hex + "." + ext }

    public func save(_ record: DeviceRecord) throws(GuestError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            try Data(record.encoded).write(to: URL(fileURLWithPath: path(record.signingKey, "record")), options: .atomic)
        } catch {
            throw .dataDirectory(path: directory, detail: "cannot write the host's record")
        }
    }

    /// Every readable record whose file name matches its key (others are skipped).
    public func all() -> [DeviceRecord] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".record") }.compactMap { name in
            guard let data = FileManager.default.contents(atPath: directory + "/" + name), data.count <= 256,
                  let record = try? DeviceRecord(encoded: Array(data)),
                  name == record.signingKey.hex + ".record" else { return nil }
            return record
        }
    }

    public func note(_ key: PublicKey) -> String? {
        (try? String(contentsOfFile: path(key, "note"), encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public func setNote(_ key: PublicKey, _ text: String?) {
        if let text {
            try? Data((text + "\n").utf8).write(to: URL(fileURLWithPath: path(key, "note")), options: .atomic)
        } else {
            try? FileManager.default.removeItem(atPath: path(key, "note"))
        }
    }

    /// The certificate pin for the host's relay (64 hex digits), nil for the system roots.
    public func pin(_ key: PublicKey) -> String? {
        (try? String(contentsOfFile: path(key, "pin"), encoding: .utf8))
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    public func setPin(_ key: PublicKey, _ pin: String?) throws(GuestError) {
        do {
            if let pin {
                try Data((pin + "\n").utf8).write(to: URL(fileURLWithPath: path(key, "pin")), options: .atomic)
            } else if FileManager.default.fileExists(atPath: path(key, "pin")) {
                try FileManager.default.removeItem(atPath: path(key, "pin"))
            }
        } catch {
            throw .dataDirectory(path: directory, detail: "cannot write the relay pin of \(shortKey(key.bytes))")
        }
    }
}
