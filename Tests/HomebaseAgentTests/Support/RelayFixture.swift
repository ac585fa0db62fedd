// The in-process relay is TestSupport's LiveRelay (ephemeral loopback port, own loop thread,
// throwaway data directory); the old name stays for this target's tests.
typealias RelayFixture = LiveRelay
