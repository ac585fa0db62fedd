// The black-holed world both rows that hole a connection stand in (BlackHole.swift: the
// Homebase's; DoneWhen.guestBlackHoled: the guest's): apart from the main world, so its latency
// figures carry no proxy hop.
import BenchSupport
import Foundation

/// A relay of its own behind the TEST black-hole proxy, a Homebase set up on it (run by the
/// row) and the directory of the guest set up for it. The proxy holes the newest connection:
/// which device that is, is the row's order of connecting. `name` keeps its files apart.
struct BlackHoledWorld {
    let world: World
    let name: String
    /// The proxy's address: the relay as both devices reach it.
    let url: String
    let host: HomebaseSetup
    var guestDir: String { Self.path(world, "guest", name) }
    /// The file whose writing tells the proxy to hole the newest connection.
    var trigger: String { Self.path(world, "black-hole", name) }

    static func start(_ world: World, name: String, engineURL: String) throws -> BlackHoledWorld {
        let url = try world.startRelayBehindBlackHole(name: "relay-\(name)", trigger: path(world, "black-hole", name),
                                                      proxyLog: "proxy-\(name).log")
        let host = try HomebaseSetup.create(world, engineURL: engineURL, name: "bench-\(name)", dataDir: path(world, "host", name),
                                            guestDir: path(world, "guest", name), relay: url)
        return BlackHoledWorld(world: world, name: name, url: url, host: host)
    }

    /// Where this world keeps its files of one kind: `work/KIND-NAME`.
    private static func path(_ world: World, _ kind: String, _ name: String) -> String { world.procs.work + "/\(kind)-\(name)" }

    /// The Homebase on this world's relay, once its first advert is out.
    func runHomebase() throws -> Child { try host.run(relay: url, [], log: "homebase-\(name).log") }

    /// How many times the proxy has black-holed a connection so far (its log).
    func holedCount() -> Int { world.procs.read("proxy-\(name).log").components(separatedBy: "black-holed").count }

    /// Writes the trigger (false: it could not be written).
    @discardableResult
    func holeNewest() -> Bool { FileManager.default.createFile(atPath: trigger, contents: Data("newest".utf8)) }
}
