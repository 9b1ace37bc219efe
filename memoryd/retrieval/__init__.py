"""Read-path building blocks: relevance gate, token counting, block format, planner, assembly cache."""
