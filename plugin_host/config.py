"""plugin_host settings from flags and OSAURUS_* environment variables (the only module that reads them)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from servicekit.tls import TransportSecurity, load_transport

DEFAULT_LISTEN = "127.0.0.1:50053"
DEFAULT_MEMORYD = "127.0.0.1:50051"
DEFAULT_INFERD = "127.0.0.1:50052"

#: Environment variables a plugin process inherits; everything else (tokens, addresses, OSAURUS_*) is dropped.
PLUGIN_ENV_PASSTHROUGH = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "SYSTEMROOT")


@dataclass(frozen=True)
class SupervisorSettings:
    """How plugin processes are started, timed out and restarted."""

    call_timeout_s: float = 120.0
    """Default deadline of one command; a plugin that does not answer in time is killed and restarted."""
    start_timeout_s: float = 20.0
    """How long a plugin process may take to load and start serving."""
    backoff_initial_s: float = 0.5
    """Delay before the first restart; doubles per consecutive failure."""
    backoff_max_s: float = 30.0
    """Upper bound of the restart delay."""
    max_failures: int = 5
    """Consecutive failures after which a plugin is marked FAILED until ReloadPlugins."""
    stable_after_s: float = 60.0
    """A process that ran this long resets the consecutive-failure count."""
    workers_per_plugin: int = 4
    """Concurrent commands per plugin process."""


@dataclass(frozen=True)
class Settings:
    """Everything the composition root needs."""

    listen: str
    home: Path
    memoryd_addr: str
    inferd_addr: str
    port_file: Path | None
    log_level: str
    grace_s: float
    transport: TransportSecurity = field(default_factory=TransportSecurity)
    """TLS / mTLS / bearer token for our public server and for calls to memoryd and inferd."""
    plugin_dirs: tuple[Path, ...] = ()
    """Folders searched for plugins (each holds plugin folders with a plugin.json, or is one)."""
    load_entry_points: bool = True
    """Whether installed packages' `osaurus.plugins` entry points are discovered."""
    entry_point_paths: tuple[str, ...] = ()
    """Extra sys.path-style directories searched for entry points (empty: the interpreter's sys.path)."""
    run_dir: Path | None = None
    """Where the per-plugin socket directories live; None makes a fresh private temporary directory."""
    memory_timeout_s: float = 3.0
    """Deadline of memory injection and recording calls; a slower memoryd means no memory, not a failed call."""
    supervisor: SupervisorSettings = field(default_factory=SupervisorSettings)
    plugin_env: Mapping[str, str] = field(default_factory=dict)
    """Environment passed to plugin processes (a filtered copy of ours)."""
    plugin_log_level: str = "INFO"

    @property
    def grants_file(self) -> Path:
        """The operator's grants: $OSAURUS_HOME/config/plugins.json."""
        return self.home / "config" / "plugins.json"

    @property
    def plugin_data_root(self) -> Path:
        """Parent of each plugin's private data directory."""
        return self.home / "plugin-data"

    @property
    def plugin_log_root(self) -> Path:
        """Where each plugin's stdout/stderr log file lives."""
        return self.home / "logs" / "plugins"


def load_settings(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> Settings:
    """Flags win over environment variables, which win over defaults."""
    environ = os.environ if env is None else env
    parser = argparse.ArgumentParser(prog="plugin-host", description="Osaurus plugin host")
    parser.add_argument("--listen", default=environ.get("OSAURUS_PLUGIN_HOST_LISTEN", DEFAULT_LISTEN))
    parser.add_argument("--home", default=environ.get("OSAURUS_HOME", str(Path.home() / ".osaurus")))
    parser.add_argument("--memoryd", default=environ.get("OSAURUS_MEMORYD_ADDR", DEFAULT_MEMORYD))
    parser.add_argument("--inferd", default=environ.get("OSAURUS_INFERD_ADDR", DEFAULT_INFERD))
    parser.add_argument("--port-file", default=None, help="write the bound address here once serving")
    parser.add_argument("--log-level", default=environ.get("OSAURUS_LOG_LEVEL", "INFO"))
    parser.add_argument("--grace-s", type=float, default=10.0, help="shutdown grace period in seconds")
    parser.add_argument(
        "--plugin-dir",
        action="append",
        default=[],
        help="extra folder to search for plugins (repeatable; also OSAURUS_PLUGIN_DIRS, ':'-separated)",
    )
    parser.add_argument(
        "--no-entry-points", action="store_true", help="do not load installed packages' osaurus.plugins"
    )
    parser.add_argument(
        "--plugin-site",
        action="append",
        default=[],
        help="directory of installed distributions searched for osaurus.plugins entry points instead of sys.path",
    )
    parser.add_argument("--plugin-run-dir", default=None, help="directory for the per-plugin sockets")
    parser.add_argument("--plugin-timeout-s", type=float, default=SupervisorSettings.call_timeout_s)
    parser.add_argument("--plugin-start-timeout-s", type=float, default=SupervisorSettings.start_timeout_s)
    parser.add_argument("--plugin-backoff-s", type=float, default=SupervisorSettings.backoff_initial_s)
    parser.add_argument("--plugin-max-failures", type=int, default=SupervisorSettings.max_failures)
    parser.add_argument("--memory-timeout-s", type=float, default=3.0)
    args = parser.parse_args(argv)
    home = Path(args.home).expanduser()
    env_dirs = [d for d in environ.get("OSAURUS_PLUGIN_DIRS", "").split(os.pathsep) if d]
    dirs = [home / "plugins", *(Path(d).expanduser() for d in [*env_dirs, *args.plugin_dir])]
    entry_points_off = args.no_entry_points or environ.get("OSAURUS_PLUGIN_ENTRY_POINTS", "1") == "0"
    return Settings(
        listen=args.listen,
        home=home,
        memoryd_addr=args.memoryd,
        inferd_addr=args.inferd,
        port_file=Path(args.port_file) if args.port_file else None,
        log_level=args.log_level,
        grace_s=args.grace_s,
        transport=load_transport(environ),
        plugin_dirs=tuple(dict.fromkeys(dirs)),
        load_entry_points=not entry_points_off,
        entry_point_paths=tuple(args.plugin_site),
        run_dir=Path(args.plugin_run_dir) if args.plugin_run_dir else None,
        memory_timeout_s=args.memory_timeout_s,
        supervisor=SupervisorSettings(
            call_timeout_s=args.plugin_timeout_s,
            start_timeout_s=args.plugin_start_timeout_s,
            backoff_initial_s=args.plugin_backoff_s,
            max_failures=args.plugin_max_failures,
        ),
        plugin_env={k: environ[k] for k in PLUGIN_ENV_PASSTHROUGH if k in environ},
        plugin_log_level=args.log_level,
    )
