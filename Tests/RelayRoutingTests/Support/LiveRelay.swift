// SetupError, hangGuard, eventually, LiveRelay and onLoop are TestSupport's, re-exported for
// every file of this target.
@_exported import TestSupport
