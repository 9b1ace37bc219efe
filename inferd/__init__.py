"""inferd: the model service (MLX generation and embeddings, an OpenAI-compatible remote backend, a fake)."""
