import Foundation
import Testing

/// A guest with no relay and no Homebase (`guest init` in `work/<name>`) and its `guest serve`
/// on the on-device tiny model: where the cases that drive serve's doors on-device start.
struct OnDeviceServe {
    let bin: Binaries
    let procs: Processes
    let directory: String
    /// The guest's own flags: its data directory, the on-device engine and model.
    let flags: [String]
    let port: Int
    let process: Process
    var base: String { "http://127.0.0.1:\(port)" }

    /// `beforeServe` runs once the guest is initialised, before serve starts (a check that
    /// needs no serve). A failed step stops what started.
    init(name: String, beforeServe: (_ bin: Binaries, _ procs: Processes, _ flags: [String]) throws -> Void = { _, _, _ in }) throws {
        let bin = try Binaries.locate(), procs = try Processes()
        let directory = procs.work + "/" + name
        let flags = ["--data-dir", directory, "--llama-server", bin.engine, "--model-path", bin.model]
        do {
            let made = try procs.run(bin.path("guest"), ["init", "--name", name] + flags)
            guard made.status == 0 else { throw Failure("guest init exited \(made.status): \(made.out)") }
            try beforeServe(bin, procs, flags)
            let port = try Processes.freePort()
            let process = try procs.start(bin.path("guest"), ["serve", "--listen", "127.0.0.1:\(port)"] + flags, log: "serve.log")
            try procs.waitUntil(60, "guest serve and its serve.json") {
                Processes.canConnect(port) && FileManager.default.fileExists(atPath: directory + "/serve.json")
            }
            (self.bin, self.procs, self.directory, self.flags, self.port, self.process) = (bin, procs, directory, flags, port, process)
        } catch {
            procs.stopAll()
            throw error
        }
    }

    func stop() { procs.stopAll() }
}

/// Runs the Python peer `Tests/<script>` (it prints one JSON object last) and returns that
/// object and its line.
func jsonPeer(_ script: String, _ args: [String]) throws -> (o: [String: Any], line: String) {
    let line = try runJSONPeer(testsFile(script), args)
    let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    return (o, line)
}
