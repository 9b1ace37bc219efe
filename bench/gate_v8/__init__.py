"""gate_v8: a sixth frozen, held-out, test-only labelled set for the relevance gate, and its loader."""
