// Checkers for the Wire vector kinds.
let wireCheckers: [String: VectorChecker] = [:]
