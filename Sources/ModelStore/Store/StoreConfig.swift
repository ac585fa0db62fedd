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

        public init(directory: String, hub: HubConfig, defaultSelection: String? = nil, maxResumes: Int = 3,
                    progressStep: Int64 = 1 << 20)
        {
            self.directory = directory
            self.hub = hub
            self.defaultSelection = defaultSelection
            self.maxResumes = maxResumes
            self.progressStep = progressStep
        }
    }
}
