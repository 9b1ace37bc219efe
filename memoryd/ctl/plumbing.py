"""memoryctl plumbing shared by the command handlers: exit codes, output streams, confirmations."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from memoryd.client import MemoryClient
from memoryd.ctl.render import dump_json

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_INVALID = 4
EXIT_PRECONDITION = 5
EXIT_UNAVAILABLE = 6
EXIT_NOT_AVAILABLE = 7
EXIT_DENIED = 8
EXIT_CONFLICT = 9
EXIT_UNHEALTHY = 10
EXIT_PARTIAL = 11


class UsageError(Exception):
    """Bad command-line input (exit 2)."""


@dataclass
class IO:
    """Where a command writes, and whether it writes JSON."""

    out: TextIO
    err: TextIO
    stdin: TextIO
    is_json: bool = False

    def emit(self, value: Any, human: Callable[[TextIO], None]) -> None:
        """JSON of `value` with --json, else the human rendering."""
        if self.is_json:
            dump_json(self.out, value)
        else:
            human(self.out)


Handler = Callable[[MemoryClient, argparse.Namespace, IO], int]


def confirmed(args: argparse.Namespace, io: IO, question: str) -> bool:
    """--yes, or an interactive "yes" on a terminal; never assumed in scripts."""
    if getattr(args, "yes", False):
        return True
    if not io.stdin.isatty():
        print(f"memoryctl: {question} — refusing without --yes", file=io.err)
        return False
    io.err.write(f"{question} Type 'yes' to continue: ")
    io.err.flush()
    return io.stdin.readline().strip().lower() == "yes"


def on_off(value: str | None) -> bool | None:
    return None if value is None else value == "on"


def default_io() -> IO:
    """The process's own streams."""
    return IO(sys.stdout, sys.stderr, sys.stdin)


__all__ = [
    "EXIT_CONFLICT",
    "EXIT_DENIED",
    "EXIT_ERROR",
    "EXIT_INVALID",
    "EXIT_NOT_AVAILABLE",
    "EXIT_NOT_FOUND",
    "EXIT_OK",
    "EXIT_PARTIAL",
    "EXIT_PRECONDITION",
    "EXIT_UNAVAILABLE",
    "EXIT_UNHEALTHY",
    "EXIT_USAGE",
    "IO",
    "Handler",
    "UsageError",
    "confirmed",
    "default_io",
    "on_off",
]
