extension LlamaServerSupervisor {
    /// Where the binary is, and every limit of starting, restarting and stopping it.
    public struct Configuration: Sendable {
        public var locator: EngineLocator
        /// How long `/health` may take to answer 200 after a start (a large model loads slowly).
        public var healthDeadline: Duration
        public var healthPoll: Duration
        /// The first pause between polls, doubled up to `healthPoll` (the tiny model is healthy in ~30 ms).
        public var healthPollFirst: Duration = .milliseconds(2)
        /// Wait on llama-server's ready line between polls (`ReadyLine`: seen the moment its model
        /// is loaded); false: the /health polls alone, as for a server without that protocol.
        public var readyLine = true
        /// Added to the engine's environment unless ours already sets them; none by default.
        /// Not OMP_WAIT_POLICY=passive: it made a start under heavy load (2 cores, load 10-12) cost
        /// 20-30 ms of CPU instead of 170-590, but on a quiet machine it cut the tiny model from
        /// ~4,000 to ~400 tokens/s (every OpenMP barrier a sleep and a wake-up) and did not start
        /// it sooner (docs/BENCHMARKS.md, session 13). A user who wants it exports it.
        public var environment: [String: String] = [:]
        /// First restart delay after a crash; doubled per crash in a row, up to `maxBackoff`.
        public var initialBackoff: Duration
        public var maxBackoff: Duration
        /// A server that ran this long before dying counts as a first crash again.
        public var stableAfter: Duration
        /// SIGTERM, then SIGKILL after this.
        public var stopGrace: Duration
        /// `--threads`; nil lets llama-server choose.
        public var threads: Int?
        /// `--ctx-size`; nil uses the model's.
        public var contextSize: Int?
        /// The server's stdout and stderr, appended; nil discards them.
        public var logPath: String?
        public var extraArguments: [String]
        /// `engine.json`: written while a server runs, removed at stop (`guest status` reads it); nil: none.
        public var stateFile: String?
        /// One line per start and per request that found no running server (guest.log); never a prompt.
        public var events: (@Sendable (String) -> Void)?

        public init(locator: EngineLocator, healthDeadline: Duration = .seconds(120),
                    healthPoll: Duration = .milliseconds(50), initialBackoff: Duration = .milliseconds(250),
                    maxBackoff: Duration = .seconds(10), stableAfter: Duration = .seconds(60),
                    stopGrace: Duration = .seconds(2), threads: Int? = nil, contextSize: Int? = nil,
                    logPath: String? = nil, extraArguments: [String] = [], stateFile: String? = nil) {
            self.locator = locator; self.healthDeadline = healthDeadline; self.healthPoll = healthPoll
            self.initialBackoff = initialBackoff; self.maxBackoff = maxBackoff; self.stableAfter = stableAfter
            self.stopGrace = stopGrace; self.threads = threads; self.contextSize = contextSize
            self.logPath = logPath; self.extraArguments = extraArguments; self.stateFile = stateFile
        }
    }
}
