import Foundation
import Glibc
import Testing

/// Sharing a Homebase with another account, as real processes on a real relay: `homebase
/// share` prints an invite, `guest join` sends the join (an introduction), the host grants,
/// the guest chats through the friend's Homebase (the tiny llama-server), the owner revokes and
/// the next answer comes from the guest's own device. Every refusal has its own message.
@Suite(.serialized) struct SharingTests {
    @Test func shareJoinChatRevokeAndEveryRefusal() throws {
        let w = try SharingWorld(engine: true)
        defer { w.procs.stopAll() }
        let hostKey = try w.startHost("friend-workstation", runtime: w.engineURL)
        let invite = try w.share(["--models", "tiny", "--rate", "100/min"])
        #expect(invite.hasPrefix("hb-invite-"))

        // The friend's guest has nothing yet: join creates its identity (relay.json stays unset).
        let joined = try w.guest("guest", ["join", invite, "--as", "alice", "--wait", "30s"] + w.linkFlags)
        #expect(joined.status == 0, "\(joined.err)")
        #expect(joined.out.contains("created this device's identity"), "\(joined.out)")
        #expect(joined.out.contains("joined: models tiny"), "\(joined.out)\n\(w.procs.read("homebase.log"))")
        let grants = try w.homebase(["grants", "list"])
        #expect(grants.contains("active") && grants.contains("account \"alice\""), "\(grants)")

        try w.useHomebase("guest", hostKey)
        let first = try w.guest("guest", ["chat", "--max-tokens", "16"] + w.chatFlags + ["hello from a friend"])
        let firstLine = try AnswerLine(first.out)
        if firstLine.brain != "joined-homebase" {  // why the router chose otherwise, for the failure message
            let why = try w.guest("guest", ["status", "--explain"] + w.linkFlags)
            let logs = "guest.log: \(w.procs.read("guest/guest.log"))\nhomebase.log: \(w.procs.read("homebase.log"))"
            Issue.record(Comment(rawValue: "answered by \(firstLine.brain): \(first.out)\n\(first.err)\nstatus: \(why.out)\n\(logs)"))
        }
        #expect(!firstLine.line.contains("fell back"), "\(firstLine.line)")

        // The invite was single use: another device of another friend is refused by the host.
        let reused = try w.guest("guest2", ["join", invite, "--wait", "30s"] + w.linkFlags)
        #expect(reused.status == 1 && reused.err.contains("invite already used"), "\(reused.out) \(reused.err)")
        // A forged invite (the secret changed, checksum fixed up) fails the host's proof check.
        let forged = try w.guest("guest3", ["join", try InviteText.withSecretByteFlipped(invite), "--wait", "30s"] + w.linkFlags)
        #expect(forged.status == 1 && forged.err.contains("invite not recognised"), "\(forged.out) \(forged.err)")
        // A copy error is caught here, before anything is sent.
        let mangled = try w.guest("guest3", ["join", String(invite.dropLast(3)) + "AAA"])
        #expect(mangled.status == 1 && mangled.err.contains("mangled invite"), "\(mangled.err)")
        // An expired invite is refused by the guest from its own clock.
        let shortLived = try w.share(["--models", "tiny", "--expires", "1s"])
        Thread.sleep(forTimeInterval: 1.2)
        let expired = try w.guest("guest3", ["join", shortLived])
        #expect(expired.status == 1 && expired.err.contains("invite expired"), "\(expired.err)")

        // Revoke: the next request is refused `revoked` (or the notice already arrived): on-device.
        let id = try #require(grants.split(separator: "\n").first { $0.contains("active") }.map { String($0.prefix(32)) })
        #expect(try w.homebase(["grants", "revoke", id]).contains("revoked \(id)"))
        let second = try w.guest("guest", ["chat", "--max-tokens", "16"] + w.chatFlags + ["still there?"])
        let secondLine = try AnswerLine(second.out)
        #expect(secondLine.brain == "on-device", "\(second.out)")
        try w.procs.waitUntil(30, "the revoke notice") {
            (try w.guest("guest", ["status"] + w.linkFlags)).out.contains("revoked")
        }
        #expect(try w.homebase(["grants", "list"]).contains("revoked"))
    }

    @Test func approvalModeWaitsForTheOwner() throws {
        let w = try SharingWorld(engine: false)
        defer { w.procs.stopAll() }
        let hostKey = try w.startHost("careful-owner", runtime: nil)
        let invite = try w.share(["--models", "tiny", "--approve"])
        let pending = try w.guest("guest", ["join", invite, "--as", "bob", "--wait", "3s"] + w.linkFlags)
        #expect(pending.status == 0 && pending.out.contains("no answer yet"), "\(pending.out) \(pending.err)")
        var list = ""
        try w.procs.waitUntil(30, "the join to be listed") {
            list = try w.homebase(["grants", "list"])
            return list.contains("pending approval")
        }
        #expect(list.contains("account \"bob\""), "\(list)")
        try w.useHomebase("guest", hostKey)
        let before = try w.guest("guest", ["status"] + w.linkFlags)
        #expect(before.out.contains("invited, not joined"), "\(before.out)")

        let id = try #require(list.split(separator: "\n").first { $0.contains("pending approval") }.map { String($0.prefix(32)) })
        #expect(try w.homebase(["grants", "approve", id]).contains("approved \(id)"))
        // The agent mails the grant on its next tick; the guest reads it with any linked command.
        // (No engine here: the host serves no model, so the joined Homebase is joined but idle.)
        var after = ""
        try w.procs.waitUntil(30, "the grant to arrive") {
            after = try w.guest("guest", ["status"] + w.linkFlags).out
            return w.procs.read("guest/guest.log").contains("joined, 1 model(s)")
        }
        #expect(!after.contains("invited, not joined"), "\(after)")
        #expect(try w.homebase(["grants", "list"]).contains("active"))
        // A refused join: approval mode, the owner says no; the guest hears why.
        let other = try w.share(["--models", "tiny", "--approve"])
        _ = try w.guest("guest4", ["join", other, "--wait", "1s"] + w.linkFlags)
        var refuseID = ""
        try w.procs.waitUntil(30, "the second join") {
            let l = try w.homebase(["grants", "list"])
            refuseID = l.split(separator: "\n").first { $0.contains("pending approval") }.map { String($0.prefix(32)) } ?? ""
            return !refuseID.isEmpty
        }
        #expect(try w.homebase(["grants", "revoke", refuseID]).contains("refused \(refuseID)"))
        try w.procs.waitUntil(30, "the refusal to arrive") {
            _ = try w.guest("guest4", ["status"] + w.linkFlags)
            return w.procs.read("guest4/guest.log").contains("refused by the host")
        }
    }

    /// `homebase share --tools` (#23) as real processes: the grant's terms reach the friend's
    /// router over the relay, with the advert's tools bit from the real llama-server. A friend
    /// whose grant lacks the flag has requests with tools answered on its own device, the reason
    /// in `status`; `grants list` says which grant allows tools.
    @Test func shareToolsReachesTheFriendsRouter() throws {
        let w = try SharingWorld(engine: true)
        defer { w.procs.stopAll() }
        let hostKey = try w.startHost("tool-owner", runtime: w.engineURL)
        for (name, flags, allowed) in [("guest", ["--tools"], true), ("guest2", [], false)] {
            let invite = try w.share(["--models", "tiny"] + flags)
            let joined = try w.guest(name, ["join", invite, "--wait", "30s"] + w.linkFlags)
            #expect(joined.out.contains("joined: models tiny"), "\(joined.out) \(joined.err)")
            try w.useHomebase(name, hostKey)
            var status = ""
            try w.procs.waitUntil(30, "\(name): the grant's terms and the advert") {
                status = try w.guest(name, ["status"] + w.linkFlags).out
                return allowed ? status.contains("with tools:    joined Homebase")
                               : status.contains("does not allow tools (ask its owner to share with --tools)")
            }
            #expect(status.contains("with tools:    \(allowed ? "joined Homebase" : "on-device")"), "\(status)")
        }
        let list = try w.homebase(["grants", "list"]).split(separator: "\n")
        #expect(list.filter { $0.contains("  tools") }.count == 1 && list.filter { $0.contains("  no tools") }.count == 1, "\(list)")
        // With the flag the agent loop's turns are answered by the friend's Homebase (the tools
        // run here); without it they run on the friend's own device.
        let remote = try w.guest("guest", ["chat", "--tools", "--max-tokens", "8"] + w.chatFlags + ["what time is it"])
        #expect(remote.status == 0, "\(remote.err)")
        let remoteLine = try AnswerLine(remote.out)
        #expect(remoteLine.brain == "joined-homebase" && !remoteLine.line.contains("fell back"),
                "\(remote.out)\nhomebase.log: \(w.procs.read("homebase.log"))")
        let local = try w.guest("guest2", ["chat", "--tools", "--max-tokens", "8"] + w.chatFlags + ["what time is it"])
        #expect(local.status == 0, "\(local.err)")
        #expect(local.out.hasPrefix("[model tiny-seed0, runtime gguf]"), "\(local.out)")
    }

    @Test func theGrantsRateIsEnforcedByTheHost() throws {
        let w = try SharingWorld(engine: true)
        defer { w.procs.stopAll() }
        let hostKey = try w.startHost("strict-owner", runtime: w.engineURL)
        let invite = try w.share(["--models", "tiny", "--rate", "1/min"])
        let joined = try w.guest("guest", ["join", invite, "--wait", "30s"] + w.linkFlags)
        #expect(joined.out.contains("joined: models tiny"), "\(joined.out) \(joined.err)")
        try w.useHomebase("guest", hostKey)
        let first = try AnswerLine(try w.guest("guest", ["chat", "--max-tokens", "8"] + w.chatFlags + ["one"]).out)
        #expect(first.brain == "joined-homebase", "\(first.line)")
        // The second request within the minute is over the grant's rate: `busy`, answered on-device.
        let second = try AnswerLine(try w.guest("guest", ["chat", "--max-tokens", "8"] + w.chatFlags + ["two"]).out)
        #expect(second.brain == "on-device" && second.line.contains("busy"), "\(second.line)")
    }
}

