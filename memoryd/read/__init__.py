"""The read path: AssembleContext's gate → planner → hybrid search → block, and InjectMemory."""
