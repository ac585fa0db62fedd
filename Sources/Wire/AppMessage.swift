// Application messages: the plaintext inside a sealed envelope (the relay never sees them).
// A message is `type u8 | body`; integers are big-endian, strings UTF-8 (validated) behind a
// u16 (`str16`) or u32 (`str32`) byte length, byte strings likewise (`bytes16`, `bytes32`),
// lists behind a u16 item count. Every length is checked; encodings are exact (no trailing bytes).
//
//   type  name          body (layouts beside each struct)
//   0x01  advert        Advert.swift: host key, sequence, timestamp, models, signature
//   0x02  away          Away.swift: the host sleeps (beside its advert listing no models)
//   0x10  request       InferenceMessages.swift (version 1: text only)
//   0x11  accept        request id 16
//   0x12  chunk         request id 16 | text str32
//   0x13  done          InferenceMessages.swift
//   0x14  error         InferenceMessages.swift
//   0x15  cancel        request id 16
//   0x16  request-v2    InferenceMessages.swift: parts, tools, options; replies are typed events
//   0x20  sync-delta    Conversation.swift (version 1: text only)
//   0x21  sync-delta-v2 Conversation.swift
//   0x30  invite        SharingMessages.swift
//   0x31  join          SharingMessages.swift
//   0x32  grant         SharingMessages.swift
//   0x33  revoke        SharingMessages.swift
//   0x34  model-choice  SharingMessages.swift
//   0x35  roster        Roster.swift
//   0x36  pair-request  PairingMessages.swift
//   0x37  pair-welcome  PairingMessages.swift
//   0x38  pair-refused  PairingMessages.swift
//   0x39  pair-code-request  PairCodeMessages.swift
//   0x3a  pair-code     PairCodeMessages.swift
//   0x3b  pair-code-outcome  PairCodeOutcome.swift
//   0x3c  roster-ask    version u64: send me the roster if yours is newer (Roster.swift)
//   0x3d  grant-terms   SharingMessages.swift: what a grant allows beyond chat (tools)
//   0x40  part          Part.swift: one piece of a message too large for one frame
//   0x50  embed-request EmbeddingMessages.swift: the vectors of texts from one model
//   0x51  embed-result  EmbeddingMessages.swift (failure: `error` 0x14)
//   0x52  manage-request   ManageMessages.swift: list, pull, delete, load, unload a host's model
//   0x53  manage-progress  ManageMessages.swift
//   0x54  manage-result    ManageMessages.swift (failure: `error` 0x14)
//   0x60  padding       a frame that only takes room (request shaping): decoded as .unknown, skipped
//   other unknown       skipped: decoded as .unknown(type:), never an error
import RelayWire

/// One application message. Decode with `AppMessage.decode(_:)`, encode with `encode()`.
public enum AppMessage: Equatable, Sendable {
    case advert(Advert)
    /// The host went to sleep; its advert of `advertSequence` lists no models.
    case away(Away)
    /// Types 0x10 (version 1) and 0x16 (version 2 and later): see `Request.version`.
    case request(Request)
    /// The host took the request; output follows.
    case accept(requestID: Bytes16)
    /// A piece of the answer, in order.
    case chunk(requestID: Bytes16, text: String)
    case done(Done)
    case error(InferenceError)
    /// The asker no longer wants the answer.
    case cancel(requestID: Bytes16)
    /// Types 0x20 (version 1) and 0x21 (version 2).
    case syncDelta(SyncDelta)
    case invite(Invite)
    case join(Join)
    case grant(Grant)
    case revoke(Revoke)
    case modelChoice(ModelChoice)
    case roster(Roster)
    case pairRequest(PairRequest)
    case pairWelcome(PairWelcome)
    case pairRefused(PairRefused)
    case pairCodeRequest(PairCodeRequest)
    case pairCode(PairCode)
    case pairCodeOutcome(PairCodeOutcome)
    /// A device of the account holds roster `version` and asks for the current one if newer.
    case rosterAsk(version: UInt64)
    case grantTerms(GrantTerms)
    case part(Part)
    case embedRequest(EmbedRequest)
    case embedResult(EmbedResult)
    case manageRequest(ManageRequest)
    case manageProgress(ManageProgress)
    case manageResult(ManageResult)
    /// A type this version does not know; its body was skipped.
    case unknown(type: UInt8)

    /// `padding` (SPEC 4, 7 "Request shaping"): skipped as an unknown type by every receiver,
    /// old ones included, so it has no case of its own. Send it as `.unknown(type: paddingType)`.
    public static let paddingType: UInt8 = 0x60

    enum TypeCode {
        static let advert: UInt8 = 0x01, away: UInt8 = 0x02
        static let request: UInt8 = 0x10, accept: UInt8 = 0x11, chunk: UInt8 = 0x12, done: UInt8 = 0x13
        static let error: UInt8 = 0x14, cancel: UInt8 = 0x15, syncDelta: UInt8 = 0x20
        static let requestV2: UInt8 = 0x16, syncDeltaV2: UInt8 = 0x21
        static let invite: UInt8 = 0x30, join: UInt8 = 0x31, grant: UInt8 = 0x32, revoke: UInt8 = 0x33
        static let modelChoice: UInt8 = 0x34, roster: UInt8 = 0x35, part: UInt8 = 0x40
        static let pairRequest: UInt8 = 0x36, pairWelcome: UInt8 = 0x37, pairRefused: UInt8 = 0x38
        static let pairCodeRequest: UInt8 = 0x39, pairCode: UInt8 = 0x3A, pairCodeOutcome: UInt8 = 0x3B
        static let rosterAsk: UInt8 = 0x3C, grantTerms: UInt8 = 0x3D
        static let embedRequest: UInt8 = 0x50, embedResult: UInt8 = 0x51
        static let manageRequest: UInt8 = 0x52, manageProgress: UInt8 = 0x53, manageResult: UInt8 = 0x54
    }

    /// The type byte of this message.
    public var typeCode: UInt8 {
        switch self {
        case .advert: TypeCode.advert
        case .away: TypeCode.away
        case .request(let r): r.typeCode
        case .accept: TypeCode.accept
        case .chunk: TypeCode.chunk
        case .done: TypeCode.done
        case .error: TypeCode.error
        case .cancel: TypeCode.cancel
        case .syncDelta(let d): d.version == 1 ? TypeCode.syncDelta : TypeCode.syncDeltaV2
        case .invite: TypeCode.invite
        case .join: TypeCode.join
        case .grant: TypeCode.grant
        case .revoke: TypeCode.revoke
        case .modelChoice: TypeCode.modelChoice
        case .roster: TypeCode.roster
        case .pairRequest: TypeCode.pairRequest
        case .pairWelcome: TypeCode.pairWelcome
        case .pairRefused: TypeCode.pairRefused
        case .pairCodeRequest: TypeCode.pairCodeRequest
        case .pairCode: TypeCode.pairCode
        case .pairCodeOutcome: TypeCode.pairCodeOutcome
        case .rosterAsk: TypeCode.rosterAsk
        case .grantTerms: TypeCode.grantTerms
        case .part: TypeCode.part
        case .embedRequest: TypeCode.embedRequest
        case .embedResult: TypeCode.embedResult
        case .manageRequest: TypeCode.manageRequest
        case .manageProgress: TypeCode.manageProgress
        case .manageResult: TypeCode.manageResult
        case .unknown(let t): t
        }
    }
}

/// Shared by message structs: each reads and writes its own body (layout beside the struct).
protocol BodyCodable {
    static func read(_ r: inout ByteReader) throws(WireError) -> Self
    func write(to w: inout ByteWriter) throws(WireError)
}
