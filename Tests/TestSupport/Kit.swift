// The process kit builds on the pure kit: a target that imports TestSupport sees TestKit too.
@_exported import TestKit
