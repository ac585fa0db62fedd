import Testing
@testable import Transport

@Test func moduleLinks() { #expect(Bool(true)) }
