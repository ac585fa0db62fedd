import CommandLineKit
import GuestAgent
import RelayRouting

extension Flag {
    /// Flags of the commands that open the relay link (`chat`, `status`): every wait of the
    /// link, so that tests and slow networks can set them.
    static let relayLink: [Flag] = [
        Flag("--relay-wait", "TIME", "longest wait for the relay's mail backlog before routing (default 2s)"),
        Flag("--connect-timeout", "TIME", "relay connect and handshake, each (default 5s)"),
        Flag("--accept-timeout", "TIME", "Homebase watchdog: no accept within TIME (default 10s)"),
        Flag("--first-output-timeout", "TIME", "Homebase watchdog: no first output within TIME (default 90s)"),
        Flag("--stall-timeout", "TIME", "Homebase watchdog: a silence mid-stream of TIME (default 30s)"),
        Flag("--advert-max-age", "TIME", "the own Homebase routes while its last advert is younger (default 10m)"),
        Flag("--cooldown", "TIME", "skip a Homebase that timed out or went silent for TIME unless heard from (default 60s; 0s: never)"),
        Flag("--join-check", "TIME", "how often a running command looks for a Homebase joined meanwhile (default 2s)"),
        Flag("--retake-after", "TIME", "serve: take a relay link back TIME after another guest command replaced it (default 5s)"),
    ]
}

extension Invocation {
    /// The link's waits from the flags.
    var linkOptions: GuestLink.Options {
        get throws {
            var o = GuestLink.Options()
            func read(_ name: String, _ set: (Duration) -> Void) throws {
                if let d = try duration(name) { set(d) }
            }
            try read("--relay-wait") { o.backlogWait = $0 }
            try read("--connect-timeout") { o.connectTimeout = $0 }
            try read("--accept-timeout") { o.watchdog.accept = $0 }
            try read("--first-output-timeout") { o.watchdog.firstOutput = $0 }
            try read("--stall-timeout") { o.watchdog.stall = $0 }
            return o
        }
    }

    /// Like `withContext`, with the relay link open for the body's duration when a relay is
    /// configured (`guest relay set`): the mail backlog is read first (at most `--relay-wait`),
    /// so a fresh advert is on file before anything is routed. The body gets the account's link.
    func withLinkedContext(_ body: (GuestContext, GuestLink?) async throws -> Int32) async throws -> Int32 {
        try await withLinks { try await body($0, $1?.account) }
    }

    /// `withLinkedContext` with every link: the account's relay and each joined Homebase's.
    func withLinks(_ body: (GuestContext, GuestLinks?) async throws -> Int32) async throws -> Int32 {
        let options = try linkOptions
        var config = try configuration
        if let d = try positiveDuration("--advert-max-age") {
            config.freshness.ownAdvertMaxAgeMs = d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
        }
        if let d = try duration("--cooldown") { config.cooldown = d }
        let joinCheck = try positiveDuration("--join-check") ?? .seconds(2)
        let retake = try positiveDuration("--retake-after") ?? .seconds(5)
        let context = try GuestContext(config)
        let signals = ShutdownSignals.install(context)  // SIGTERM/SIGINT still stop the engine
        defer { signals.forEach { $0.cancel() } }
        // The warm floor, first thing once the engine can be stopped again: it starts while the
        // links open and the backlog is read (serve keeps it running from then on).
        if command.name == "chat" || command.name == "serve" { await context.warmAtStart() }
        BackgroundFetch(context).resume()  // a sibling's choice whose download was stopped
        let links: GuestLinks?
        do {
            links = try GuestLinks.open(context, options: options)
        } catch {
            // A broken relay setting must not stop an answer: the router falls back on-device.
            context.log.write("relay: not linked: \(error)")
            Console.err("guest: relay link not opened: \(error)\n")
            links = nil
        }
        for failure in links?.failures ?? [] {
            context.log.write("relay: not linked: \(failure)")
            Console.err("guest: relay link not opened: \(failure)\n")
        }
        await links?.waitForBacklog()
        // `guest join` in another terminal: serve (and a long chat) link its relay without a restart.
        let serving = command.name == "serve"
        links?.watchJoins(every: joinCheck, retakeAfter: serving ? retake : nil)
        let late = links == nil && serving
            ? LateLinks(context, options: options, every: joinCheck, retakeAfter: retake) : nil
        // serve probes its cooled-down Homebases in the background; a chat is gone too soon.
        let probe = serving && config.cooldown > .zero ? links.map { CooldownProbe(links: $0, cooldowns: context.cooldowns, log: context.log) } : nil
        // A command beside `guest serve` replaced serve's link: once closed, serve takes it back.
        func close() {
            links?.stop(); late?.stop(); probe?.stop()
            if !serving, links?.all.isEmpty == false { ServeAnnouncement.tellServe(context.paths, log: context.log) }
        }
        do {
            let status = try await body(context, links)
            close()
            await context.shutdown()
            return status
        } catch {
            close()
            await context.shutdown()
            throw error
        }
    }
}
