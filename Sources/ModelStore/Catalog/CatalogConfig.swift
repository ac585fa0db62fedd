import Foundation

extension Catalog {
    public struct Config: Sendable {
        public var hub: HubConfig
        /// Directory of the cache file (`catalog.json`); must exist.
        public var cacheDirectory: String
        /// A snapshot younger than this is used without asking the hub.
        public var maxAge: Duration
        /// Hide tiers needing more RAM than this; nil reads /proc/meminfo.
        public var machineMemory: Int64?

        public init(hub: HubConfig, cacheDirectory: String, maxAge: Duration = .seconds(7 * 24 * 3600),
                    machineMemory: Int64? = nil)
        {
            self.hub = hub
            self.cacheDirectory = cacheDirectory
            self.maxAge = maxAge
            self.machineMemory = machineMemory ?? Catalog.physicalMemory()
        }
    }
}
