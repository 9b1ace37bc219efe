"""Process-level concerns of memoryd: glibc malloc tuning and the memory debug probe."""
