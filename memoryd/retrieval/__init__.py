"""Retrieval: hybrid search scoring (hybrid, mmr, terms, context_prior) and the read path (gate, planner, blocks)."""
