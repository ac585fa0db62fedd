import Basics
import Signing

/// SHA-256 of a file as it is on disk, hex (Signing's, shared with the Homebase's pulls). The
/// hub's tree gives each LFS file's sha256 (`lfs.oid`): a download is renamed into place only
/// when the bytes on disk hash to it.
enum FileDigest {
    /// The file's sha256 in lowercase hex.
    /// - Throws: `ModelStoreError.io` when the file cannot be read.
    static func sha256(path: String) throws -> String {
        do { return hexString(try Signing.sha256(filePath: path)) } catch {
            throw ModelStoreError.io(path: path, detail: error.description)
        }
    }

    /// A sha256 as the hub writes it: 64 hex digits (anything else is not one, e.g. a git oid).
    static func isSHA256(_ s: String) -> Bool { isSHA256Hex(s) }
}
