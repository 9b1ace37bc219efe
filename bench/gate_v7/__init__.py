"""gate_v7: a fifth frozen, held-out, test-only labelled set for the relevance gate, and its loader."""
