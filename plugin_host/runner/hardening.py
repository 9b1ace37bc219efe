"""Process hardening for a plugin: token from an inherited pipe, no core dumps or ptrace, exit when the host dies."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import resource
import sys

_PR_SET_DUMPABLE = 4
_MAX_TOKEN_BYTES = 512


def make_undumpable() -> bool:
    """Forbid core dumps and make /proc/<pid>/{mem,environ,fd} root-only, so another plugin running as the same
    user cannot read this process's memory (and its token). Returns whether prctl succeeded (Linux only)."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if not sys.platform.startswith("linux"):
        return False
    libc_name = ctypes.util.find_library("c")
    if libc_name is None:
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    return int(libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0


def read_token(fd: int) -> str:
    """Read the first line of the token pipe. The host keeps the pipe open: its end of file is the lifeline."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = os.read(fd, 1)
        if not chunk:
            raise RuntimeError("the token pipe closed before a token arrived")
        data += chunk
        if len(data) > _MAX_TOKEN_BYTES:
            raise RuntimeError("the token line is too long")
    return data.strip().decode("ascii")


def wait_for_host_exit(fd: int) -> None:
    """Block until the host closes its end of the token pipe (it exited or stopped this plugin)."""
    while os.read(fd, 64):
        pass
