// Generators for the Wire vectors (relay frames, application messages, parts).
func wireVectorCases() -> [VectorCase] { [] }
