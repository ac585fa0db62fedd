import Foundation
import Routing
import Signing
import Storage

/// The account key this guest trusts a roster (and its Homebase's adverts) from, stored as
/// 64 hex digits and a newline in `<data-dir>/account.key` by `guest init --account KEY`.
/// It is a public key: the file is 0644.
public typealias AccountKeyFile = PublicKeyFile

/// One public key as 64 hex digits and a newline (`account.key`, `homebase.key`).
public struct PublicKeyFile: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    public func read() -> PublicKey? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return PublicKey(hex: text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    public func write(_ key: PublicKey) throws {
        try Data((key.hex + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}

/// The own Homebase's adverts: the routing store's `OwnAdvertStore` for the Homebase's device
/// key (`homebase.key`, else the account key), none while no account key is stored. Read at every call.
public struct AccountAdverts: OwnAdvertSource {
    public let account: AccountKeyFile
    public let database: Database

    public init(account: AccountKeyFile, database: Database) {
        self.account = account
        self.database = database
    }

    public func latestOwnAdvert() throws -> ReceivedAdvert? {
        guard let key = account.read() else { return nil }
        // Adverts are signed by the Homebase's device key, learnt from the roster (GuestMail);
        // before any, the account key itself.
        let homebase = HomebaseKeyFile(path: URL(fileURLWithPath: account.path).deletingLastPathComponent()
            .appendingPathComponent("homebase.key").path).read()
        return try OwnAdvertStore(database: database, accountHostKey: homebase ?? key).latestOwnAdvert()
    }
}
