"""gate_v13: an eleventh frozen, held-out, test-only labelled set for the relevance gate, and its loader."""
