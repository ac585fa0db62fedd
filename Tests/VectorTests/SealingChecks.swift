// Checkers for the Sealing vector kinds.
let sealingCheckers: [String: VectorChecker] = [:]
