import Dispatch
import Foundation
import Glibc

/// `homebase run`: the agent until SIGTERM or SIGINT, then a clean stop (active requests are
/// cancelled, which aborts their engine transfers; the link closes; a last status is written).
enum RunCommand {
    static func run(_ words: [String], _ c: HomebaseCLI.Context) async throws -> Int32 {
        let f = try Flags(words, valued: Settings.keys, switches: ["quiet"])
        if f.help {
            out("usage: homebase run [--relay URL] [--pin HEX | --ca-file PEM] [--quiet] [--KEY VALUE ...]\n"
                + "KEY is any config file key: " + Settings.keys.sorted().joined(separator: ", "))
            return 0
        }
        guard f.positional.isEmpty else { throw Flags.UsageError(description: "run takes no arguments") }
        var settings = try Settings.load(path: c.configPath, explicit: c.configExplicit)
        for (k, v) in f.values { settings.values[k] = v }
        var config = try settings.configuration()
        let quiet = f.switches.contains("quiet")
        config.log = { line in if !quiet { err("homebase: \(line)") } }
        let agent = try HomebaseAgent(configuration: config, files: c.files)

        let (signals, sink) = AsyncStream.makeStream(of: Int32.self)
        var set = sigset_t()
        sigemptyset(&set)
        for s in [SIGTERM, SIGINT] { sigaddset(&set, s) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)  // a parent may have spawned us with them blocked
        let sources = [SIGTERM, SIGINT].map { sig in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { sink.yield(sig) }
            source.resume()
            return source
        }
        agent.start()
        for await sig in signals {
            err("homebase: signal \(sig): stopping")
            break
        }
        await agent.stop()
        sources.forEach { $0.cancel() }
        return 0
    }
}
