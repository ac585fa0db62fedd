import Foundation

/// The project venv's Python (scripts/setup.sh creates it, with websockets, openai, ollama, anthropic).
public func pythonPath() throws -> String {
    let p = packageRoot.appendingPathComponent(".cache/venv/bin/python").path
    guard FileManager.default.isExecutableFile(atPath: p) else {
        throw SetupError("Python for the test peers missing at \(p): run scripts/setup.sh (it creates .cache/venv)")
    }
    return p
}

/// The venv's Python when scripts/setup.sh made it, else the system's (for peers that need only
/// the standard library).
public var anyPython: String {
    (try? pythonPath()) ?? "/usr/bin/python3"
}

/// A file under Tests/ of this checkout, e.g. `testsFile("TestSupport/peers/engine_peer.py")`.
public func testsFile(_ relative: String) -> String {
    packageRoot.appendingPathComponent("Tests/" + relative).path
}

/// The scripted engine, `Tests/TestSupport/peers/engine_peer.py` (its `--help` lists `options`),
/// started with the venv's Python; it ends when its stdin closes.
public func startEnginePeer(_ options: [String] = []) throws -> PortedProcess {
    try PortedProcess(try pythonPath(), [testsFile("TestSupport/peers/engine_peer.py")] + options)
}

/// Runs the Python peer `script` (a path) to its end with the venv's Python; its last stdout
/// line, which must be a JSON object (else the error carries the tail of its stderr).
public func runJSONPeer(_ script: String, _ args: [String]) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: try pythonPath())
    p.arguments = [script] + args
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    let line = String(decoding: data, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
    guard line.hasPrefix("{") else {
        let e = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        throw SetupError("\((script as NSString).lastPathComponent) printed no JSON: \(line) \(e.suffix(1500))")
    }
    return line
}
