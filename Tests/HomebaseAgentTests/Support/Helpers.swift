// packageRoot, pythonPath, PortedProcess, ProcessBox and eventually are TestSupport's,
// re-exported for every file of this target.
@_exported import TestSupport
import Foundation

/// This target's setup errors are TestSupport's.
typealias TestSetupError = SetupError
