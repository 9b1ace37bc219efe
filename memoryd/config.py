"""memoryd settings: service flags/environment, and the memory.json configuration with its ranges and clamping."""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import math
import os
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memoryd.storage.private import private_folder
from servicekit.cpu_affinity import parse_cpus
from servicekit.tls import TransportSecurity, load_transport

_log = logging.getLogger("memoryd.config")

DEFAULT_LISTEN = "127.0.0.1:50051"
DEFAULT_INFERD = "127.0.0.1:50052"


# --------------------------------------------------------------------------------------------------------------
# Service settings (flags and OSAURUS_* environment)


@dataclass(frozen=True)
class ServiceSettings:
    """How the memoryd process runs: where it listens, where its data lives, which inferd it calls."""

    listen: str = DEFAULT_LISTEN
    home: Path = field(default_factory=lambda: Path("~/.osaurus").expanduser())
    inferd_addr: str = DEFAULT_INFERD
    port_file: Path | None = None
    log_level: str = "INFO"
    max_workers: int = 32
    #: The store on PostgreSQL instead of $OSAURUS_HOME/memory/memory.sqlite: a postgresql:// URL
    #: (OSAURUS_MEMORYD_DATABASE_URL or --database-url; "" = SQLite, the default). docs/postgres.md.
    database_url: str = ""
    #: The PostgreSQL schema holding the store's tables (OSAURUS_MEMORYD_DATABASE_SCHEMA, default "public").
    database_schema: str = "public"
    #: TLS / mTLS / bearer token for our server and for calls to inferd (OSAURUS_TLS_*, OSAURUS_AUTH_TOKEN_FILE).
    transport: TransportSecurity = field(default_factory=TransportSecurity)
    #: File holding the store passphrase (first line) when the store is encrypted with one; re-read on Retry.
    passphrase_file: Path | None = None
    #: Start the background indexer thread (tests may turn it off to index synchronously).
    background_indexing: bool = True
    #: The read path's budget for waiting on inferd (heuristic gate): a query embedding later than this leaves
    #: search on full text alone (OSAURUS_MEMORYD_QUERY_EMBED_TIMEOUT_MS; the llm gate's own timeout adds to it).
    query_embed_timeout_s: float = 0.15
    #: Tenants other than the default one kept open at once (OSAURUS_MEMORYD_MAX_OPEN_TENANTS; memoryd.tenancy): the
    #: least recently used idle one is closed beyond it and reopened on demand. 0 turns tenants off: a call naming
    #: one is FAILED_PRECONDITION (TENANTS_DISABLED).
    max_open_tenants: int = 16
    #: Blocks of at least this many bytes get their own mapping, returned to the OS on free (glibc mallopt; fixing it
    #: turns off glibc's dynamic threshold, memoryd.runtime.malloc_tuning). OSAURUS_MEMORYD_MMAP_THRESHOLD_KIB, 0 = leave
    #: glibc's default; also left alone when MALLOC_MMAP_THRESHOLD_ is set (glibc applied that one already).
    mmap_threshold_bytes: int = 256 * 1024
    #: At most this many glibc malloc arenas (OSAURUS_MEMORYD_MALLOC_ARENA_MAX, 0 = glibc's 8 per core; left alone
    #: when MALLOC_ARENA_MAX is set).
    malloc_arena_max: int = 2
    #: Debug only: append a memory breakdown (RSS, malloc, SQLite, faiss) here every 20 s (OSAURUS_MEMORYD_MEMTRACE;
    #: memoryd.runtime.memtrace), with the Python allocation sites that grew when memory_trace_frames > 0
    #: (OSAURUS_MEMORYD_TRACEMALLOC=FRAMES: tracemalloc slows every allocation). Off by default.
    memory_trace: Path | None = None
    memory_trace_frames: int = 0
    #: Several replicas on one PostgreSQL database: how long a replica's claim on a conversation lasts without its
    #: heartbeat (renewed every third of it), i.e. how soon a dead replica's work is taken over
    #: (OSAURUS_MEMORYD_CLAIM_LEASE_S; memoryd.replication).
    claim_lease_s: float = 30.0
    #: Cores every memoryd thread runs on (OSAURUS_MEMORYD_CPUS or --cpus, e.g. "0"; empty = not pinned, the
    #: default). With inferd pinned to the other cores, cache-miss AssembleContext waits less for the query
    #: embedding on a small machine (servicekit.cpu_affinity says when it pays).
    cpus: frozenset[int] = frozenset()

    @property
    def memory_dir(self) -> Path:
        """$OSAURUS_HOME/memory: the database and the vector indexes."""
        return self.home / "memory"

    @property
    def is_postgres(self) -> bool:
        """Whether the store is on PostgreSQL (database_url set)."""
        return bool(self.database_url)

    @property
    def database_path(self) -> Path:
        """$OSAURUS_HOME/memory/memory.sqlite."""
        return self.memory_dir / "memory.sqlite"

    @property
    def vectors_dir(self) -> Path:
        """$OSAURUS_HOME/memory/vectors: one folder per agent."""
        return self.memory_dir / "vectors"

    @property
    def keys_dir(self) -> Path:
        """$OSAURUS_HOME/keys: store key files (0600), KDF parameters, the encryption posture."""
        return self.home / "keys"

    @property
    def quarantine_dir(self) -> Path:
        """$OSAURUS_HOME/quarantine: stores that could not be opened, moved aside (never deleted)."""
        return self.home / "quarantine"

    @property
    def config_path(self) -> Path:
        """$OSAURUS_HOME/config/memory.json."""
        return self.home / "config" / "memory.json"


def parse_settings(
    argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None
) -> ServiceSettings:
    """Flags win over environment, environment over defaults; TransportConfigError for bad TLS/token settings."""
    env = os.environ if env is None else env
    parser = argparse.ArgumentParser(prog="memoryd", description="Osaurus memory service (gRPC).")
    parser.add_argument("--listen", default=env.get("OSAURUS_MEMORYD_LISTEN", DEFAULT_LISTEN))
    parser.add_argument("--home", default=env.get("OSAURUS_HOME", "~/.osaurus"))
    parser.add_argument("--inferd", default=env.get("OSAURUS_INFERD_ADDR", DEFAULT_INFERD))
    parser.add_argument("--port-file", default=None, help="write the real listen target here once serving")
    parser.add_argument("--log-level", default=env.get("OSAURUS_LOG_LEVEL", "INFO"))
    parser.add_argument("--max-workers", type=int, default=int(env.get("OSAURUS_MEMORYD_WORKERS", "32")))
    parser.add_argument(
        "--database-url",
        default=env.get("OSAURUS_MEMORYD_DATABASE_URL", "").strip(),
        help="postgresql://… to keep the store on PostgreSQL (default: SQLite under --home)",
    )
    parser.add_argument(
        "--database-schema", default=env.get("OSAURUS_MEMORYD_DATABASE_SCHEMA", "").strip() or "public"
    )
    parser.add_argument(
        "--cpus",
        default=env.get("OSAURUS_MEMORYD_CPUS", ""),
        help='pin every thread to these cores, e.g. "0" or "0-1" (default: not pinned)',
    )
    args = parser.parse_args(list(argv) if argv is not None else None)
    try:
        cpus = parse_cpus(args.cpus)
    except ValueError as error:
        parser.error(f"--cpus / OSAURUS_MEMORYD_CPUS: {error}")
    if args.database_url and not args.database_url.startswith(("postgresql://", "postgres://")):
        parser.error("--database-url / OSAURUS_MEMORYD_DATABASE_URL must be a postgresql:// URL")
    passphrase_file = env.get("OSAURUS_MEMORY_PASSPHRASE_FILE", "").strip()
    memory_trace = env.get("OSAURUS_MEMORYD_MEMTRACE", "").strip()
    mmap_kib = int(_env_number(env, "OSAURUS_MEMORYD_MMAP_THRESHOLD_KIB", 256.0, low=0.0, high=32 * 1024.0))
    if "MALLOC_MMAP_THRESHOLD_" in env:
        mmap_kib = 0
    arena_max = int(_env_number(env, "OSAURUS_MEMORYD_MALLOC_ARENA_MAX", 2.0, low=0.0, high=1024.0))
    if "MALLOC_ARENA_MAX" in env:
        arena_max = 0
    trace_frames = int(_env_number(env, "OSAURUS_MEMORYD_TRACEMALLOC", 0.0, low=0.0, high=25.0))
    max_open_tenants = int(_env_number(env, "OSAURUS_MEMORYD_MAX_OPEN_TENANTS", 16.0, low=0.0, high=4096.0))
    query_embed_ms = _env_ms(env, "OSAURUS_MEMORYD_QUERY_EMBED_TIMEOUT_MS", 150.0, low=1.0, high=60_000.0)
    claim_lease_s = _env_number(env, "OSAURUS_MEMORYD_CLAIM_LEASE_S", 30.0, low=1.0, high=3600.0)
    return ServiceSettings(
        listen=args.listen,
        home=Path(args.home).expanduser(),
        inferd_addr=args.inferd,
        port_file=Path(args.port_file) if args.port_file else None,
        log_level=args.log_level,
        max_workers=args.max_workers,
        database_url=args.database_url,
        database_schema=args.database_schema,
        transport=load_transport(env),
        passphrase_file=Path(passphrase_file).expanduser() if passphrase_file else None,
        query_embed_timeout_s=query_embed_ms / 1000.0,
        mmap_threshold_bytes=mmap_kib * 1024,
        malloc_arena_max=arena_max,
        memory_trace=Path(memory_trace).expanduser() if memory_trace else None,
        memory_trace_frames=trace_frames,
        claim_lease_s=claim_lease_s,
        max_open_tenants=max_open_tenants,
        cpus=cpus,
    )


def _env_ms(env: Mapping[str, str], name: str, default: float, *, low: float, high: float) -> float:
    """A millisecond setting from the environment, clamped to [low, high]; the default when unset or not a number."""
    return _env_number(env, name, default, low=low, high=high)


def _env_number(env: Mapping[str, str], name: str, default: float, *, low: float, high: float) -> float:
    """A number from the environment, clamped to [low, high]; the default when unset or not a number."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        _log.warning("%s=%r is not a number; using %g", name, raw, default)
        return default
    return default if not math.isfinite(value) else min(max(value, low), high)


# --------------------------------------------------------------------------------------------------------------
# memory.json


@dataclass(frozen=True)
class MemoryConfig:
    """config/memory.json: exactly the spec's keys plus coreModel. Values are always within their ranges."""

    enabled: bool = True
    embedding_backend: str = "mlx"
    embedding_model: str = "all-minilm-l6-v2"
    extraction_mode: str = "sessionEnd"
    relevance_gate_mode: str = "heuristic"
    memory_budget_tokens: int = 800
    summary_debounce_seconds: int = 60
    consolidation_interval_hours: int = 24
    salience_floor: float = 0.2
    episode_retention_days: int = 365
    core_model: str = "smollm2-135m-instruct"


@dataclass(frozen=True)
class _Key:
    """How one config field is stored in JSON and which values it accepts."""

    attr: str
    json_key: str
    kind: type
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None


KEYS: tuple[_Key, ...] = (
    _Key("enabled", "enabled", bool),
    _Key("embedding_backend", "embeddingBackend", str, choices=("mlx", "none")),
    _Key("embedding_model", "embeddingModel", str),
    _Key("extraction_mode", "extractionMode", str, choices=("sessionEnd", "manual")),
    _Key("relevance_gate_mode", "relevanceGateMode", str, choices=("off", "heuristic", "llm")),
    _Key("memory_budget_tokens", "memoryBudgetTokens", int, low=100, high=4000),
    _Key("summary_debounce_seconds", "summaryDebounceSeconds", int, low=10, high=3600),
    _Key("consolidation_interval_hours", "consolidationIntervalHours", int, low=1, high=168),
    _Key("salience_floor", "salienceFloor", float, low=0.0, high=1.0),
    _Key("episode_retention_days", "episodeRetentionDays", int, low=0, high=3650),
    _Key("core_model", "coreModel", str),
)
KEYS_BY_ATTR = {k.attr: k for k in KEYS}


@dataclass(frozen=True)
class ConfigViolation:
    """One rejected config value: attribute name, human description, reason token."""

    attr: str
    description: str
    reason: str


def check_value(key: _Key, value: Any) -> ConfigViolation | None:
    """Why `value` is not acceptable for `key`, or None when it is."""
    if key.kind is bool:
        return (
            None
            if isinstance(value, bool)
            else ConfigViolation(key.attr, "must be true or false", "INVALID_TYPE")
        )
    if key.kind is str:
        if not isinstance(value, str):
            return ConfigViolation(key.attr, "must be a string", "INVALID_TYPE")
        if key.choices and value not in key.choices:
            return ConfigViolation(key.attr, f"must be one of {', '.join(key.choices)}", "INVALID_ENUM")
        if key.attr == "embedding_model" and not value.strip():
            return ConfigViolation(key.attr, "must not be empty", "MISSING_FIELD")
        if len(value) > 256:
            return ConfigViolation(key.attr, "is longer than 256 characters", "CONFIG_OUT_OF_RANGE")
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return ConfigViolation(key.attr, "must be a number", "INVALID_TYPE")
    if key.kind is int and float(value) != int(value):
        return ConfigViolation(key.attr, "must be a whole number", "INVALID_TYPE")
    if math.isnan(float(value)) or not (key.low or 0) <= value <= (key.high or 0):
        return ConfigViolation(
            key.attr, f"must be between {key.low:g} and {key.high:g}", "CONFIG_OUT_OF_RANGE"
        )
    return None


def validate_changes(changes: Mapping[str, Any]) -> list[ConfigViolation]:
    """Every violation among `changes` (attribute name → new value); unknown attributes are violations too."""
    problems: list[ConfigViolation] = []
    for attr, value in changes.items():
        key = KEYS_BY_ATTR.get(attr)
        if key is None:
            problems.append(ConfigViolation(attr, "is not a configuration field", "UNKNOWN_FIELD"))
            continue
        problem = check_value(key, value)
        if problem is not None:
            problems.append(problem)
    return problems


def _coerce(key: _Key, value: Any) -> Any:
    if key.kind is int:
        return int(value)
    if key.kind is float:
        return float(value)
    return value


def from_json_object(data: Mapping[str, Any], source: str = "memory.json") -> MemoryConfig:
    """Tolerant read of a hand-edited file: bad values become defaults, out-of-range numbers are clamped."""
    defaults = MemoryConfig()
    values: dict[str, Any] = {}
    known = {k.json_key for k in KEYS}
    for extra in sorted(set(data) - known):
        _log.warning("%s: ignoring unknown key %r", source, extra)
    for key in KEYS:
        if key.json_key not in data:
            continue
        raw = data[key.json_key]
        problem = check_value(key, raw)
        if problem is None:
            values[key.attr] = _coerce(key, raw)
        elif problem.reason == "CONFIG_OUT_OF_RANGE" and key.low is not None and key.high is not None:
            number = float(raw)
            clamped = key.low if math.isnan(number) else min(max(number, key.low), key.high)
            values[key.attr] = _coerce(key, clamped)
            _log.warning(
                "%s: %s=%r is out of range [%g, %g]; using %r",
                source,
                key.json_key,
                raw,
                key.low,
                key.high,
                values[key.attr],
            )
        else:
            _log.warning(
                "%s: %s %s; using the default %r",
                source,
                key.json_key,
                problem.description,
                getattr(defaults, key.attr),
            )
    return dataclasses.replace(defaults, **values)


def to_json_object(config: MemoryConfig) -> dict[str, Any]:
    """The JSON object written to memory.json (camelCase keys)."""
    return {key.json_key: getattr(config, key.attr) for key in KEYS}


#: A hand edit of memory.json is noticed within this many seconds: get() runs on every BufferTurn (twice), and an
#: os.stat per call was a measurable part of the hot path. Changes made through update() apply at once.
RECHECK_S = 0.25


class ConfigStore:
    """Thread-safe holder of memory.json: cached, re-read when the file changes on disk, written atomically.

    The file's mtime and size are checked at most every `recheck_s` seconds of `clock` (injectable for tests).
    """

    def __init__(
        self,
        path: Path,
        *,
        recheck_s: float = RECHECK_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._config = MemoryConfig()
        self._stamp: tuple[int, int] | None = None
        self._listeners: list[Callable[[MemoryConfig], None]] = []
        self._recheck_s = recheck_s
        self._clock = clock
        self._next_check = clock() + recheck_s
        self._reload_if_changed()

    @property
    def path(self) -> Path:
        """Where the file lives."""
        return self._path

    def get(self) -> MemoryConfig:
        """The effective configuration (re-reads the file if someone edited it, noticed within recheck_s)."""
        now = self._clock()
        if now >= self._next_check:
            self._next_check = now + self._recheck_s
            self._reload_if_changed()
        return self._config  # one attribute read: atomic, and the object is immutable

    def subscribe(self, listener: Callable[[MemoryConfig], None]) -> None:
        """Call `listener` with the new configuration after every change (update or file edit)."""
        with self._lock:
            self._listeners.append(listener)

    def update(self, changes: Mapping[str, Any]) -> MemoryConfig:
        """Apply validated changes (attribute name → value) and persist; raises ValueError on violations."""
        problems = validate_changes(changes)
        if problems:
            raise ValueError("; ".join(f"{p.attr} {p.description}" for p in problems))
        with self._lock:
            new = dataclasses.replace(
                self._config, **{a: _coerce(KEYS_BY_ATTR[a], v) for a, v in changes.items()}
            )
            self._write(new)
            self._config = new
            listeners = list(self._listeners)
        for listener in listeners:
            listener(new)
        return new

    def _write(self, config: MemoryConfig) -> None:
        private_folder(self._path.parent)
        text = json.dumps(to_json_object(config), indent=2, sort_keys=True) + "\n"
        fd, tmp = tempfile.mkstemp(prefix=".memory.json.", dir=self._path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self._path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        stat = self._path.stat()
        self._stamp = (stat.st_mtime_ns, stat.st_size)

    def _reload_if_changed(self) -> None:
        try:
            stat = self._path.stat()
        except FileNotFoundError:
            # Missing file = defaults; deliberately not written (the reference app's data-loss race).
            with self._lock:
                changed = self._stamp is not None
                self._stamp = None
                self._config = MemoryConfig() if changed else self._config
            return
        stamp = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            if stamp == self._stamp:
                return
            self._stamp = stamp
            try:
                data = json.loads(self._path.read_text(encoding="utf-8"))
                if not isinstance(data, dict):
                    raise ValueError("top level is not an object")
            except (OSError, ValueError) as error:
                _log.warning("%s could not be read (%s); using defaults", self._path, type(error).__name__)
                self._config = MemoryConfig()
                return
            self._config = from_json_object(data, str(self._path))
            listeners = list(self._listeners)
            config = self._config
        for listener in listeners:
            listener(config)
