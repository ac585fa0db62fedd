/// The one error type of the Homebase agent. Messages name causes, paths, URLs (without
/// credentials) and keys' public halves only: never prompts, answers or secrets.
public enum HomebaseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `homebase init` has not been run for this data directory.
    case notInitialized(dataDir: String)
    /// `homebase init` found an identity already there (it never overwrites one).
    case alreadyInitialized(dataDir: String)
    /// This device does not hold the account key (it cannot re-sign the roster).
    case noAccountKey(path: String)
    /// A Homebase that joined an account (no account key) was asked to change its roster;
    /// `head` names the account's first Homebase when the roster tells.
    case notAccountHolder(head: String?, account: String)
    /// `homebase pair CODE` on a Homebase that heads its own account (it holds an account key).
    case headsOwnAccount(dataDir: String)
    /// Joining an account failed; the text says why and what to do.
    case pairing(String)
    /// A key, record or roster file could not be read or written.
    case identity(String)
    /// The store failed (SQLite); the text says which operation.
    case storage(String)
    /// A device record that does not decode or whose signature does not verify.
    case invalidRecord(String)
    /// A device key that is not 64 hex digits.
    case invalidKey(String)
    /// The host itself cannot be added or removed as a sibling.
    case selfDevice
    /// No sibling with this key.
    case unknownDevice(String)
    /// The probe refused the runtime; the text says which step failed and what to do.
    case runtimeRefused(String)
    /// No stored runtime at this URL.
    case unknownRuntime(String)
    /// No relay URL: pass `--relay URL` or set `relay` in the config file.
    case noRelay
    /// A setting or flag value that does not parse.
    case invalidSetting(key: String, reason: String)
    /// The relay link could not be set up (bad URL, TLS context).
    case link(String)
    /// Sharing: an invite, join or grant command that cannot be done; the text says why.
    case sharing(String)

    public var description: String {
        switch self {
        case .notInitialized(let d): "no Homebase identity in \(d): run `homebase init` first"
        case .alreadyInitialized(let d): "\(d) already holds a Homebase identity; refusing to overwrite it"
        case .noAccountKey(let p): "this device does not hold the account key (\(p)): the roster is signed on the first device"
        case .notAccountHolder(let head, let account):
            "this Homebase joined account \(account.prefix(16))… and holds no account key: only the account's first Homebase, "
                + (head.map { "\($0), the one where you ran `homebase init`," } ?? "the Homebase where you ran `homebase init`,")
                + " can add or remove devices and issue pairing codes: run the command there"
        case .headsOwnAccount(let d):
            "this Homebase heads its own account (it holds the account key \(d)/account.key), so it cannot join another; "
                + "nothing was changed. To add this workstation to another account, give it a fresh data directory and config: "
                + "`homebase --data-dir NEW_DIR --config NEW_FILE pair CODE`, then `homebase --data-dir NEW_DIR --config NEW_FILE run`"
        case .pairing(let m): "pairing: \(m)"
        case .identity(let m): "identity: \(m)"
        case .storage(let m): "store: \(m)"
        case .invalidRecord(let m): "invalid device record: \(m)"
        case .invalidKey(let k): "invalid device key \(k.prefix(80)): expected 64 hex digits"
        case .selfDevice: "that is this Homebase itself"
        case .unknownDevice(let k): "no sibling device \(k)"
        case .runtimeRefused(let m): "runtime refused: \(m)"
        case .unknownRuntime(let u): "no runtime stored at \(u)"
        case .noRelay: "no relay: pass --relay ws[s]://HOST[:PORT] or set `relay` in the config file"
        case .invalidSetting(let k, let r): "invalid \(k): \(r)"
        case .link(let m): "relay link: \(m)"
        case .sharing(let m): "sharing: \(m)"
        }
    }
}
