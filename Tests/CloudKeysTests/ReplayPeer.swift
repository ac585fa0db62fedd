import TestSupport

/// InferenceTests' replay peer, whose `/keys/v1/models` plays the providers' key check.
enum ReplayPeer {
    private static let shared: Result<PortedProcess, Error> = Result {
        try PortedProcess(try pythonPath(), [testsFile("InferenceTests/peers/replay_peer.py")])
    }

    static func port() throws -> Int { try shared.get().port }
}
