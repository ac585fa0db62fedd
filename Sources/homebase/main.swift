import Foundation
import HomebaseAgent

// The commands (HomebaseCLI and the files beside it) parse with CommandLineKit; this file only hands over the process.
exit(await HomebaseCLI.main(CommandLine.arguments, environment: ProcessInfo.processInfo.environment))
