"""gate_v2: the frozen labelled data for the evidence-based relevance gate and its loader."""
