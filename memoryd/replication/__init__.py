"""Several memoryd replicas on one PostgreSQL database: distillation claims, one consolidation pass at a time,
cross-replica cache invalidation. SQLite (one process) never uses this package."""
