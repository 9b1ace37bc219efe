"""gate_v11: a ninth frozen, held-out, test-only labelled set for the relevance gate, and its loader."""
