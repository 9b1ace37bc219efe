"""gate_v12: a tenth frozen, held-out, test-only labelled set for the relevance gate, and its loader."""
