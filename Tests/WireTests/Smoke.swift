import Testing
@testable import Wire

@Test func moduleLinks() { #expect(Bool(true)) }
