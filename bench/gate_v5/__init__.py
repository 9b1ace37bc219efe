"""gate_v5: a third frozen, held-out, test-only labelled set for the relevance gate, and its loader."""
