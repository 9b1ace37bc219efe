"""gate_v3: a frozen, held-out, test-only labelled set for the relevance gate, and its loader."""
