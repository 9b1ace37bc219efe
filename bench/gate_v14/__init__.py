"""gate_v14: a twelfth frozen, held-out, test-only labelled set for the relevance gate, and its loader."""
