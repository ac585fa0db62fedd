// The own Homebase is gone (killed; its advert still fresh): the router still picks it, the
// relay answers not-here, and the runner continues on the running on-device engine.
import BenchSupport
import Inference

struct NotHereResult {
    var total = Samples(), notHere = Samples(), onDevice = Samples()
    var runs = 0, answeredOnDevice = 0
}

enum NotHere {
    static func measure(_ guest: BenchGuest, runs: Int) async throws -> NotHereResult {
        let runner = guest.runner()
        var r = NotHereResult()
        for i in 0..<runs {
            let t = try await guest.ask(runner, ChatRequest(model: "default", messages: [.init(role: .user, content: "Run \(i): hello?")],
                                                           maxTokens: 16))
            r.runs += 1
            guard t.brain == .onDevice, let f = t.fallbackAt, let first = t.fallbackText else { continue }
            r.answeredOnDevice += 1
            r.total.add(ms(first - t.start))
            r.notHere.add(ms(f - t.start))
            r.onDevice.add(ms(first - f))
        }
        return r
    }

    static func print(_ r: NotHereResult, cold: Double) {
        Swift.print("""
            ### not-here → first on-device token

            The Homebase process is killed (SIGKILL) while its advert is fresh; each call routes to it, \
            the relay answers not-here, and the runner falls back to the on-device llama-server (tiny model), \
            already running (its cold start, measured before: \(fmt(cold, 0)) ms). \(r.answeredOnDevice) of \(r.runs) \
            answered on-device.

            | segment | p50 ms | p99 ms | max ms |
            |---|---:|---:|---:|
            | call → not-here (router decision, seal, relay round trip) | \(fmt(r.notHere.p50, 2)) | \(fmt(r.notHere.p99, 2)) | \(fmt(r.notHere.max, 2)) |
            | not-here → first on-device token | \(fmt(r.onDevice.p50, 2)) | \(fmt(r.onDevice.p99, 2)) | \(fmt(r.onDevice.max, 2)) |
            | **call → first on-device token** | **\(fmt(r.total.p50, 2))** | \(fmt(r.total.p99, 2)) | \(fmt(r.total.max, 2)) |

            """)
    }
}
