import Basics
import Courier
import Foundation
import Glibc
import Sealing
import Signing
import Storage

/// Where a Homebase keeps its files: one data directory (mode 0700).
///
///     identity/signing.key, identity/hpke.key, identity/device.record   the device (Sealing's layout)
///     account.key                                                       the account's Ed25519 seed (0600)
///     homebase.sqlite3                                                  roster, runtimes, adverts, grants
///     status.json                                                       written by `homebase run` for `status`
///     replay.sqlite3                                                    replay state of `homebase run` (0600)
public struct HostFiles: Sendable {
    public var dataDir: String

    public init(dataDir: String) { self.dataDir = dataDir }

    /// `$XDG_DATA_HOME/homebase/host`, or `~/.local/share/homebase/host`.
    public static func defaultDataDir(environment: [String: String]) -> String {
        XDGBase.dataHome(environment: environment) + "/homebase/host"
    }

    public var identityDir: String { dataDir + "/identity" }
    public var accountKeyPath: String { dataDir + "/account.key" }
    public var storePath: String { dataDir + "/homebase.sqlite3" }
    /// The audit log (#21): JSON lines, rotated to `audit.jsonl.1`.
    public var auditPath: String { dataDir + "/audit.jsonl" }
    public var statusPath: String { dataDir + "/status.json" }
    public var replayStorePath: String { dataDir + "/replay.sqlite3" }

    /// True when `init` has run here.
    public var isInitialized: Bool {
        FileManager.default.fileExists(atPath: identityDir + "/" + DeviceIdentity.recordFile)
    }

    /// The device identity; `.notInitialized` when there is none.
    public func loadIdentity() throws(HomebaseError) -> DeviceIdentity {
        guard isInitialized else { throw .notInitialized(dataDir: dataDir) }
        do { return try DeviceIdentity.load(from: identityDir) } catch { throw .identity("\(error)") }
    }

    /// The account key, held only by the account's first device.
    public func loadAccountKey() throws(HomebaseError) -> SigningKey {
        guard FileManager.default.fileExists(atPath: accountKeyPath) else { throw .noAccountKey(path: accountKeyPath) }
        do { return try SigningKey.load(from: accountKeyPath) } catch { throw .identity("\(error)") }
    }

    /// The store (created on first use; the directory must exist). A data directory group or
    /// others may enter is tightened to 0700 first: the stores hold pairing and invite secrets.
    public func openStore(readOnly: Bool = false) throws(HomebaseError) -> HostStore {
        if !readOnly { PrivateFiles.tightenDirectory(dataDir) }
        return try HostStore(path: storePath, readOnly: readOnly)
    }

    /// The replay state (Courier's `ReplayStore`): a damaged file is an error, never reset.
    func openReplayStore() throws(HomebaseError) -> ReplayStore {
        PrivateFiles.tightenDirectory(dataDir)
        do { return try ReplayStore(path: replayStorePath) } catch { throw .storage("\(error)") }
    }

    /// Creates the data directory (and parents) with mode 0700, or tightens an existing one.
    func makeDataDir() throws(HomebaseError) {
        do { try PrivateFiles.makeDirectory(dataDir) } catch {
            throw .identity("cannot create \(dataDir): \(error.localizedDescription)")
        }
    }
}

/// What `homebase init` made.
public struct InitResult: Sendable {
    public var identity: DeviceIdentity
    /// Nil when an account key was already there (not a first device).
    public var accountKey: PublicKey?
    public var rosterVersion: UInt64
}

extension HostFiles {
    /// Creates the device identity and, on a first device, the account: an account signing key
    /// and a roster (version 1) listing this device, signed by it. Never overwrites an identity.
    public func initialize(name: String, nowMs: Int64) throws(HomebaseError) -> InitResult {
        let identity = try createIdentity(name: name, nowMs: nowMs)
        let account = SigningKey.generate()
        do { try account.save(to: accountKeyPath) } catch { throw .identity("cannot write \(accountKeyPath): \(error)") }
        let store = try openStore()
        defer { store.close() }
        let roster = try store.createRoster(accountKey: account, host: identity.record, nowMs: nowMs)
        return InitResult(identity: identity, accountKey: account.publicKey, rosterVersion: roster.version)
    }
}

extension HostFiles {
    /// Creates the device identity only (no account): `init` on a first device, and
    /// `homebase pair CODE` on a workstation that joins an account. Never overwrites one.
    public func createIdentity(name: String, nowMs: Int64) throws(HomebaseError) -> DeviceIdentity {
        guard !isInitialized else { throw .alreadyInitialized(dataDir: dataDir) }
        try makeDataDir()
        do {
            let identity = try DeviceIdentity.generate(name: name, now: UInt64(nowMs))
            try identity.save(to: identityDir)
            return identity
        } catch {
            throw .identity("cannot create the device identity: \(error)")
        }
    }

    /// True when this Homebase holds the account key (it ran `init`): only it signs rosters.
    public var holdsAccountKey: Bool { FileManager.default.fileExists(atPath: accountKeyPath) }

    /// The account key for a change of the roster (`devices add|remove`, `pair`). A Homebase
    /// that joined the account has none: the error names the one that does.
    package func accountKeyForChanges(_ store: HostStore) throws(HomebaseError) -> SigningKey {
        if !holdsAccountKey, let account = try store.accountPublicKey() {
            let head = try store.accountHead().map { "\"\($0.name)\" (\($0.signingKey.short))" }
            throw .notAccountHolder(head: head, account: account.hex)
        }
        return try loadAccountKey()
    }
}

/// Unix milliseconds now: `Basics.wallClockMs` under the name this module's call sites use.
package func nowMs() -> Int64 { wallClockMs() }
