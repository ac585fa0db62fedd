// What application messages look like in logs: sizes only, keys and ids as hex (the relay
// frames' and fixed bytes' descriptions are RelayWire's FrameDescriptions.swift).
import RelayWire

extension AppMessage: LogDescribed {
    public var description: String {
        switch self {
        case .advert(let a): "advert(host \(a.hostKey), seq \(a.sequence), \(a.models.count) models)"
        case .away(let a): "away(host \(a.hostKey), advert seq \(a.advertSequence))"
        case .request(let r): "request v\(r.version)(\(r.requestID), \(r.messages.count) messages, \(r.tools.count) tools, inline \(r.inline))"
        case .accept(let id): "accept(\(id))"
        case .chunk(let id, let text): "chunk(\(id), \(text.utf8.count) B)"
        case .done(let d): "done(\(d.requestID), \(d.promptTokens)+\(d.completionTokens) tokens)"
        case .error(let e): "error(\(e.requestID), code \(e.code.rawValue))"
        case .cancel(let id): "cancel(\(id))"
        case .rosterAsk(let v): "roster-ask(holding \(v))"
        case .grantTerms(let t): "grant-terms(\(t.grantID), tools \(t.tools))"
        case .syncDelta(let d): "sync-delta(\(d.conversationID), \(d.appended.count) messages)"
        case .invite(let i): "invite(host \(i.hostSigningKey), \(i.models.count) models)"
        case .join(let j): "join(\(j.deviceRecord.count) B record)"
        case .grant(let g): "grant(\(g.grantID), \(g.models.count) models)"
        case .revoke(let r): "revoke(\(r.grantID))"
        case .modelChoice(let c): "model-choice(seq \(c.sequence))"
        case .roster(let r): "roster(account \(r.accountKey), v\(r.version), \(r.deviceRecords.count) devices)"
        case .pairRequest(let p): "pair-request(code \(p.codeID.hex))"
        case .pairWelcome(let p): "pair-welcome(code \(p.codeID.hex), roster v\(p.roster.version))"
        case .pairRefused(let p): "pair-refused(code \(p.codeID.hex), reason \(p.reason.code))"
        case .pairCodeRequest(let p): "pair-code-request(\(p.requestID))"
        case .pairCode(let p): "pair-code(\(p.requestID), \(p.result.isIssued ? "issued" : "refused"))"  // never the code
        case .pairCodeOutcome(let p): "pair-code-outcome(\(p.requestID), code \(p.codeID.hex), outcome \(p.outcome.code), \(p.wrongTries) wrong)"
        case .part(let p): "part(\(p.messageID), \(p.index)/\(p.count), \(p.bytes.count) B)"
        case .embedRequest(let e): "embed-request(\(e.requestID), \(e.inputs.count) inputs)"  // never the texts
        case .embedResult(let e): "embed-result(\(e.requestID), \(e.vectors.count) × \(e.vectors.first?.count ?? 0))"
        case .manageRequest(let m): "manage-request(\(m.requestID), \(m.action.name))"
        case .manageProgress(let p): "manage-progress(\(p.requestID), \(p.completed)/\(p.total))"
        case .manageResult(let m): "manage-result(\(m.requestID), \(m.runtimes.count) runtimes)"
        case .unknown(let t): "unknown(type \(t))"
        }
    }
}

/// A struct that carries prompts, answers or secrets: it describes itself as its message does.
public protocol DescribedAsMessage: LogDescribed {
    /// The message that carries it.
    var asMessage: AppMessage { get }
}

extension DescribedAsMessage {
    public var description: String { asMessage.description }
}

extension AppMessage.Request: DescribedAsMessage { public var asMessage: AppMessage { .request(self) } }
extension AppMessage.SyncDelta: DescribedAsMessage { public var asMessage: AppMessage { .syncDelta(self) } }
extension AppMessage.Invite: DescribedAsMessage { public var asMessage: AppMessage { .invite(self) } }
extension AppMessage.Join: DescribedAsMessage { public var asMessage: AppMessage { .join(self) } }

extension AppMessage.ChatMessage: LogDescribed {
    public var description: String { "\(role)(\(content.utf8.count) B)" }
}
extension RelayFrame.Auth: LogDescribed {
    public var description: String { RelayFrame.auth(self).description }
}
