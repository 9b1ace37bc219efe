"""gate_v6: a fourth frozen, held-out, test-only labelled set for the relevance gate, and its loader."""
