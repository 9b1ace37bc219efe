"""memoryd: the Osaurus memory service (storage, hybrid search, agents, gate, planner, writer, consolidator)."""
