"""gate_v4: a second frozen, held-out, test-only labelled set for the relevance gate, and its loader."""
