"""Starting a plugin runner process: private directories, a scrubbed environment, token and status pipes."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RUNNER_MODULE = "plugin_host.runner"


@dataclass(frozen=True)
class RunnerSpec:
    """Everything needed to start one plugin's runner."""

    name: str
    entry_point: str
    import_paths: tuple[str, ...]
    socket_dir: Path
    data_dir: Path
    log_path: Path
    env: Mapping[str, str]
    log_level: str = "INFO"
    workers: int = 4
    hang_limit_s: float = 0.0
    """The runner exits when a command runs longer than this (0: never); the host's own timeout comes first."""


@dataclass
class Spawned:
    """A started runner: the process, our end of its token pipe (the lifeline) and of its status pipe."""

    process: subprocess.Popen[bytes]
    lifeline_fd: int
    status_fd: int

    def close_pipes(self) -> None:
        """Close our pipe ends; closing the lifeline tells the runner to exit."""
        for fd in (self.lifeline_fd, self.status_fd):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.lifeline_fd = self.status_fd = -1


def private_dir(path: Path) -> Path:
    """Create `path` (and parents) and make it 0700, owned by us."""
    path.mkdir(parents=True, exist_ok=True)
    os.chmod(path, 0o700)
    if path.stat().st_uid != os.getuid():
        raise PermissionError(f"{path} is not owned by this user")
    return path


def package_roots() -> list[str]:
    """Directories that make plugin_host, servicekit and the generated osaurus package importable."""
    roots: list[str] = []
    for package in ("plugin_host", "servicekit", "osaurus"):
        spec = importlib.util.find_spec(package)
        for location in (spec.submodule_search_locations or []) if spec else []:
            root = str(Path(location).resolve().parent)
            if root not in roots:
                roots.append(root)
    return roots


def runner_env(passthrough: Mapping[str, str], data_dir: Path) -> dict[str, str]:
    """A minimal environment: no OSAURUS_* variables, tokens or peer addresses; HOME is the plugin's data dir."""
    env = dict(passthrough)
    env["PYTHONPATH"] = os.pathsep.join(package_roots())
    env["HOME"] = str(data_dir)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def spawn_runner(spec: RunnerSpec, token: str) -> Spawned:
    """Start the runner in its own session, handing it the token through an inherited pipe."""
    token_r, token_w = os.pipe()
    status_r, status_w = os.pipe()
    command = [
        sys.executable, "-m", RUNNER_MODULE,
        "--entry", spec.entry_point,
        "--name", spec.name,
        "--socket-dir", str(spec.socket_dir),
        "--data-dir", str(spec.data_dir),
        "--token-fd", str(token_r),
        "--status-fd", str(status_w),
        "--workers", str(spec.workers),
        "--hang-limit-s", str(spec.hang_limit_s),
        "--log-level", spec.log_level,
    ]  # fmt: skip
    for path in spec.import_paths:
        command += ["--path", path]
    spec.log_path.parent.mkdir(parents=True, exist_ok=True)
    log_fd = os.open(spec.log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log_fd,
            stderr=log_fd,
            cwd=spec.data_dir,
            env=runner_env(spec.env, spec.data_dir),
            pass_fds=(token_r, status_w),
            close_fds=True,
            start_new_session=True,
        )
    except OSError:
        for fd in (token_r, token_w, status_r, status_w):
            os.close(fd)
        raise
    finally:
        os.close(log_fd)
    os.close(token_r)
    os.close(status_w)
    os.write(token_w, token.encode("ascii") + b"\n")
    return Spawned(process, token_w, status_r)


def read_status(fd: int, timeout_s: float) -> dict[str, Any] | None:
    """The runner's one-line JSON start report, or None if it exited or stayed silent for timeout_s."""
    deadline = time.monotonic() + timeout_s
    data = b""
    while not data.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            return None
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
    try:
        report = json.loads(data.decode("utf-8", "replace"))
    except ValueError:
        return None
    return report if isinstance(report, dict) else None


def kill_group(process: subprocess.Popen[bytes], sig: int = signal.SIGKILL) -> None:
    """Signal the runner and anything it started (it leads its own session)."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


def probe_manifest(
    entry_point: str, import_paths: Sequence[str], *, env: Mapping[str, str], timeout_s: float = 15.0
) -> dict[str, Any]:
    """Import an entry point in a throwaway runner process and return the manifest it prints."""
    command = [sys.executable, "-m", RUNNER_MODULE, "--manifest", "--entry", entry_point]
    for path in import_paths:
        command += ["--path", path]
    scratch = Path(tempfile.gettempdir())
    done = subprocess.run(
        command,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=runner_env(env, scratch),
        timeout=timeout_s,
        check=False,
        start_new_session=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"manifest probe exited with {done.returncode}")
    value = json.loads(done.stdout.decode("utf-8").strip().splitlines()[-1])
    if not isinstance(value, dict):
        raise ValueError("manifest probe did not print a JSON object")
    return value
