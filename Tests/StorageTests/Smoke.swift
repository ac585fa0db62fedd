import Testing
@testable import Storage

@Test func moduleLinks() { #expect(Bool(true)) }
