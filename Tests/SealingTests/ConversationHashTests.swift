import Testing
import Basics
import Sealing

@Test func conversationHashIsAChainFromZero() {
    let a = ConversationHash.extend(ConversationHash.empty, role: 2, content: "hello")
    let b = ConversationHash.extend(a, role: 3, content: "hi there")
    #expect(ConversationHash.of([(role: UInt8(2), content: "hello"), (role: UInt8(3), content: "hi there")]) == b)
    #expect(ConversationHash.of([]) == ConversationHash.empty)
    #expect(a != ConversationHash.empty && a != b)
}

@Test func conversationHashSeparatesRoleAndContent() {
    let user = ConversationHash.extend(ConversationHash.empty, role: 2, content: "x")
    let assistant = ConversationHash.extend(ConversationHash.empty, role: 3, content: "x")
    #expect(user != assistant)
    // Length-prefixing: moving bytes between messages changes the hash.
    let split1 = ConversationHash.of([(role: UInt8(2), content: "ab"), (role: UInt8(2), content: "c")])
    let split2 = ConversationHash.of([(role: UInt8(2), content: "a"), (role: UInt8(2), content: "bc")])
    #expect(split1 != split2)
}

@Test func conversationHashKnownAnswer() {
    // SHA-256("homebase conversation v1" || 0x00 || 0^32 || 0x02 || 00000002 || "hi"), computed independently.
    let h = ConversationHash.extend(ConversationHash.empty, role: 2, content: "hi")
    #expect(hexString(h)
            == "219bf789bf00c1fcb453c88b9b80d3d28e6e06972e92a45143888c92c261bf9d")
}
