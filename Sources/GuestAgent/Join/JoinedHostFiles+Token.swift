import Basics
import Foundation
import Signing

/// `<host key hex>.token`: the relay admission token the host's invite carried (hex, mode 0600),
/// presented in `auth` to that host's relay (SPEC "Sharing with another account").
extension JoinedHostFiles {
    public func token(_ key: PublicKey) -> [UInt8]? {
        (try? String(contentsOfFile: path(key, "token"), encoding: .utf8)).flatMap(\.trimmedHexBytes)
    }

    public func setToken(_ key: PublicKey, _ token: [UInt8]?) throws(GuestError) {
        let file = path(key, "token")
        do {
            if let token {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
                guard FileManager.default.createFile(atPath: file, contents: Data((hexString(token) + "\n").utf8),
                                                     attributes: [.posixPermissions: 0o600]) else {
                    throw GuestError.dataDirectory(path: directory, detail: "cannot write the relay token")
                }
            } else if FileManager.default.fileExists(atPath: file) {
                try FileManager.default.removeItem(atPath: file)
            }
        } catch {
            throw .dataDirectory(path: directory, detail: "cannot write the relay token of \(shortKey(key.bytes))")
        }
    }
}

/// `<host key hex>.alternates`: the other nodes of the host's relay cluster its invite named, one
/// URL a line (docs/CLUSTER.md "Devices"); absent: the invite named one URL.
extension JoinedHostFiles {
    public func alternates(_ key: PublicKey) -> [String] {
        guard let text = try? String(contentsOfFile: path(key, "alternates"), encoding: .utf8) else { return [] }
        return text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    public func setAlternates(_ key: PublicKey, _ urls: [String]) throws(GuestError) {
        let file = path(key, "alternates")
        do {
            if !urls.isEmpty {
                try Data(urls.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
            } else if FileManager.default.fileExists(atPath: file) {
                try FileManager.default.removeItem(atPath: file)
            }
        } catch {
            throw .dataDirectory(path: directory, detail: "cannot write the relay alternates of \(shortKey(key.bytes))")
        }
    }
}
