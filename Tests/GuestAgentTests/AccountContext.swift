import Signing
@testable import GuestAgent

/// A guest's context in a fresh data directory, `account` written as its account key.
func accountContext(_ account: SigningKey) throws -> (GuestPaths, GuestContext) {
    let paths = GuestPaths(dataDirectory: try temporaryDirectory("guest-tests"))
    let context = try GuestContext(GuestConfiguration(paths: paths, environment: [:]))
    try context.account.write(account.publicKey)
    return (paths, context)
}
