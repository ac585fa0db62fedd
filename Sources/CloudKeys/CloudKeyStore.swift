import Glibc
import Inference
import Signing

/// The guest's cloud key rings: per provider an ordered list of keys; the first is the one used.
///
/// Layout (a directory of 0600 files: one small file per ring is enough, and every write is an
/// atomic rename, so a crash leaves the old ring or the new one):
///
///   <data-dir>/keyring/            mode 0700
///   <data-dir>/keyring/openai      mode 0600, the keys, one per line (LF), in order
///   <data-dir>/keys/openai         mode 0600, the first key, raw, no newline: the slot the
///                                  providers read for every request (and GuestAgent reads for
///                                  presence); absent when the ring is empty
///
/// A ring file that group or others may access is refused, never read. Keys never leave the
/// device (nothing here is synced).
public struct CloudKeyStore: Sendable {
    /// Longest key accepted (today's keys are ~50-200 characters).
    public static let maxKeyBytes = 512
    public let dataDir: String

    public init(dataDir: String) { self.dataDir = dataDir }

    public func ringPath(_ p: CloudProvider) -> String { dataDir + "/keyring/" + p.rawValue }
    /// The single slot the providers read.
    public func slotPath(_ p: CloudProvider) -> String { dataDir + "/keys/" + p.rawValue }

    /// The keys in order (empty when no ring file exists).
    public func keys(_ p: CloudProvider) throws(CloudKeysError) -> [SecretBytes] {
        try RingFile.read(ringPath(p))
    }

    /// The key in use: the first of the ring.
    public func activeKey(_ p: CloudProvider) throws(CloudKeysError) -> SecretBytes? { try keys(p).first }

    /// What the providers read for every request: the slot of `p` (so a reorder or removal here
    /// takes effect on the next call, even mid-conversation).
    public func keySource(_ p: CloudProvider) -> APIKeySource { .file(slotPath(p)) }

    /// Appends `key` (it becomes active only if the ring was empty). Refuses a duplicate.
    public func add(_ p: CloudProvider, key: SecretBytes) throws(CloudKeysError) {
        try Self.validate(key)
        try edit(p) { ring throws(CloudKeysError) in
            guard !ring.contains(where: { $0 == key }) else { throw .duplicate(p) }
            ring.append(key)
        }
    }

    /// Removes the key at 1-based `position`.
    public func remove(_ p: CloudProvider, position: Int) throws(CloudKeysError) {
        try edit(p) { ring throws(CloudKeysError) in
            guard ring.indices.contains(position - 1) else { throw .noSuchPosition(p, position: position, count: ring.count) }
            ring.remove(at: position - 1)
        }
    }

    /// Moves the key at 1-based `from` to `to`; moving one to 1 makes it the key of the next call.
    public func move(_ p: CloudProvider, from: Int, to: Int) throws(CloudKeysError) {
        try edit(p) { ring throws(CloudKeysError) in
            for n in [from, to] where !ring.indices.contains(n - 1) {
                throw .noSuchPosition(p, position: n, count: ring.count)
            }
            ring.insert(ring.remove(at: from - 1), at: to - 1)
        }
    }

    /// Read, change, save under an exclusive lock (`keyring/.lock`): two `guest keys` at once
    /// cannot lose each other's change.
    private func edit(_ p: CloudProvider, _ change: (inout [SecretBytes]) throws(CloudKeysError) -> Void) throws(CloudKeysError) {
        try Dirs.ensure(dataDir + "/keyring")
        let lockPath = dataDir + "/keyring/.lock"
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(operation: "open", path: lockPath, errno: errno) }
        defer { close(fd) }  // closing releases the lock
        guard flock(fd, LOCK_EX) == 0 else { throw .io(operation: "flock", path: lockPath, errno: errno) }
        var ring = try keys(p)
        try change(&ring)
        try save(p, ring)
    }

    /// Writes the ring, then mirrors its first key into the slot (or removes the slot).
    private func save(_ p: CloudProvider, _ ring: [SecretBytes]) throws(CloudKeysError) {
        try Dirs.ensure(dataDir + "/keyring")
        try Dirs.ensure(dataDir + "/keys")
        try RingFile.write(ring, to: ringPath(p))
        if let first = ring.first {
            try Dirs.call("write") { try KeyFile.write(first, to: slotPath(p)) }
        } else if unlink(slotPath(p)) != 0, errno != ENOENT {
            throw .io(operation: "unlink", path: slotPath(p), errno: errno)
        }
    }

    /// Printable ASCII without spaces, 1 to `maxKeyBytes` bytes.
    static func validate(_ key: SecretBytes) throws(CloudKeysError) {
        guard key.count > 0 else { throw .invalidKey("it is empty") }
        guard key.count <= maxKeyBytes else { throw .invalidKey("it is longer than \(maxKeyBytes) bytes") }
        let printable = key.withUnsafeBytes { $0.allSatisfy { $0 > 0x20 && $0 < 0x7F } }
        guard printable else { throw .invalidKey("it contains spaces, control or non-ASCII characters") }
    }
}
