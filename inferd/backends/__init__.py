"""Model backends behind one small protocol: MLX (LLM + BERT embeddings), OpenAI-compatible remote, fake."""
