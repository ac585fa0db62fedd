extension ModelStore {
    public struct Config: Sendable {
        /// The data directory; must exist.
        public var directory: String
        public var hub: HubConfig
        /// What the selection falls back to when the selected model is deleted (nil: none, the
        /// built-in on-device brain).
        public var defaultSelection: String?
        /// Automatic resumes per file after a cut connection.
        public var maxResumes: Int
        /// Progress reports (and database writes) at most once per this many bytes.
        public var progressStep: Int64
        /// How often a running pull checks that it is still the model's download: a cancel from
        /// another process (`guest models cancel` runs apart from the pull) stops it within this.
        public var cancelPoll: Duration

        public init(directory: String, hub: HubConfig, defaultSelection: String? = nil, maxResumes: Int = 3,
                    progressStep: Int64 = 1 << 20, cancelPoll: Duration = .seconds(1))
        {
            self.directory = directory
            self.hub = hub
            self.defaultSelection = defaultSelection
            self.maxResumes = maxResumes
            self.progressStep = progressStep
            self.cancelPoll = cancelPoll
        }
    }
}
