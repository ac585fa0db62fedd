// Generators for the Sealing vectors (HPKE, envelopes, streamed replies).
func sealingVectorCases() -> [VectorCase] { [] }
