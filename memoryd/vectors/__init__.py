"""Per-agent faiss vector indexes, persisted with a manifest and rebuilt from the embeddings table."""
