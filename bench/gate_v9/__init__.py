"""gate_v9: a seventh frozen, held-out, test-only labelled set for the relevance gate, and its loader."""
