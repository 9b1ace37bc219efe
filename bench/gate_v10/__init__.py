"""gate_v10: an eighth frozen, held-out, test-only labelled set for the relevance gate, and its loader."""
