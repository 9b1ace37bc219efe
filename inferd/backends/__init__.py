"""Model backends behind one small protocol: MLX (LLM + BERT embeddings), OpenAI-compatible remote, fake.

Importing this package preloads OpenBLAS on Linux (a dlopen, nothing else), so that whichever backend module
imports mlx.core first, MLX's CPU matmuls use it rather than the ~30x slower bundled reference BLAS.
"""

from inferd.backends.blas import ensure_openblas

ensure_openblas()
