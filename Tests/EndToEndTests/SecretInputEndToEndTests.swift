import Foundation
import Glibc
import Pairing
import Testing

/// Codes and invites read from standard input, so they never sit in the process list or shell
/// history: `guest pair -`, a plain `guest pair` on a device not paired yet, `guest join -` and
/// `homebase pair -` work with real processes on a real relay; the argument form still works
/// and warns; the stores they write are 0600 in a 0700 data directory.
@Suite(.serialized) struct SecretInputEndToEndTests {
    @Test func aCodeAndAnInviteReadFromStdinPairAndJoin() throws {
        let s = try PairScene.withRunningHomebase()
        defer { s.stop() }

        // `guest pair -`: the code on stdin; no warning, the screens' confirmation printed.
        let code = try s.homebaseCode()
        let laptop = try s.runWithInput(s.bin.path("guest"), ["pair", "-", "--name", "laptop", "--wait", "30s"] + s.guestArgs("laptop"),
                                        input: code + "\n")
        #expect(laptop.status == 0 && laptop.out.contains("confirmation: "), "\(laptop.err)\(laptop.out)")
        #expect(!laptop.err.contains("warning"), "\(laptop.err)")

        // Plain `guest pair` on a device not paired yet reads the code from stdin (a prompt on a tty).
        let second = try s.homebaseCode()
        let phone = try s.runWithInput(s.bin.path("guest"), ["pair", "--name", "phone", "--wait", "30s"] + s.guestArgs("phone"),
                                       input: second + "\n")
        #expect(phone.status == 0 && phone.out.contains("confirmation: "), "\(phone.err)\(phone.out)")

        // The argument form still works, and says the code was visible to other users.
        let third = try s.homebaseCode()
        let tablet = try s.guestRun("tablet", ["pair", third, "--name", "tablet", "--wait", "30s"])
        #expect(tablet.status == 0, "\(tablet.err)")
        #expect(tablet.err.contains("visible to other users") && tablet.err.contains("guest pair -"), "\(tablet.err)")

        // `guest join -`: the invite on stdin.
        let invite = String(try s.homebase(["share", "--relay", s.relay, "--models", "tiny"]).prefix { $0 != "\n" })
        let friend = try s.runWithInput(s.bin.path("guest"), ["join", "-", "--wait", "30s"] + s.guestArgs("friend"), input: invite + "\n")
        #expect(friend.status == 0 && !friend.err.contains("warning"), "\(friend.err)\(friend.out)")
        #expect(friend.out.contains("joining Homebase \"e2e-homebase\""), "\(friend.out)")

        // What pairing and joining wrote is the user's alone.
        for dir in ["laptop", "phone", "friend"] {
            let data = s.procs.work + "/" + dir
            #expect(fileMode(data) == 0o700, "\(dir)")
            #expect(fileMode(data + "/routing.sqlite") == 0o600, "\(dir)")
        }
        #expect(fileMode(s.procs.work + "/host") == 0o700)
        #expect(fileMode(s.procs.work + "/host/homebase.sqlite3") == 0o600)
        #expect(fileMode(s.procs.work + "/host/homebase.sqlite3-wal") == 0o600)
    }

    @Test func homebasePairReadsTheCodeFromStdin() throws {
        let s = try PairScene(engine: false)
        defer { s.stop() }
        _ = try s.initHost()
        // An expired code is refused before any network: proof that the code on stdin was read.
        let expired = try PairingCode(parsing: try s.code(try s.homebase(["pair", "--relay", s.relay, "--no-wait", "--valid", "1ms"])))
        Thread.sleep(forTimeInterval: 0.01)
        let second = ["--data-dir", s.procs.work + "/second"]
        let piped = try s.runWithInput(s.bin.path("homebase"), second + ["pair", "-"], input: expired.text + "\n")
        #expect(piped.status == 1 && piped.err.contains("expired"), "\(piped.err)\(piped.out)")
        #expect(!piped.err.contains("warning"), "\(piped.err)")
        let empty = try s.runWithInput(s.bin.path("homebase"), second + ["pair", "-"], input: "")
        #expect(empty.status == 2 && empty.err.contains("no code on standard input"), "\(empty.err)")
        let argv = try s.run(s.bin.path("homebase"), second + ["pair", expired.text])
        #expect(argv.status == 1 && argv.err.contains("visible to other users"), "\(argv.err)")
        // The guest likewise, for `guest pair -`.
        let guest = try s.runWithInput(s.bin.path("guest"), ["pair", "-"] + s.guestArgs("g"), input: expired.text + "\n")
        #expect(guest.status == 1 && guest.err.contains("expired"), "\(guest.err)")
    }
}

extension PairScene {
    /// Runs a program to its end with `input` on its stdin (then closed).
    func runWithInput(_ program: String, _ args: [String], input: String) throws -> Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = args
        p.environment = environment
        let out = Pipe(), err = Pipe(), stdin = Pipe()
        (p.standardOutput, p.standardError, p.standardInput) = (out, err, stdin)
        try p.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let errData = LockedData()
        let drained = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { errData.set(err.fileHandleForReading.readDataToEndOfFile()); drained.signal() }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        p.waitUntilExit()
        return Run(status: p.terminationStatus, out: String(decoding: o, as: UTF8.self),
                   err: String(decoding: errData.value, as: UTF8.self))
    }
}
