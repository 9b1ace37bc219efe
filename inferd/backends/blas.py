"""Loads OpenBLAS into the process before MLX on Linux: MLX's bundled reference BLAS is ~30x slower on the CPU."""

from __future__ import annotations

import ctypes
import logging
import platform
import sys
import threading
from pathlib import Path

_log = logging.getLogger("inferd.blas")

#: Debian/Ubuntu locations of libopenblas0-pthread (exports unprefixed cblas_sgemm, unlike numpy's bundled copy).
CANDIDATES = (
    "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
    "/usr/lib/aarch64-linux-gnu/openblas-pthread/libopenblas.so.0",
    "/usr/lib64/libopenblas.so.0",
    "/usr/lib/libopenblas.so.0",
)
INSTALL_HINT = "sudo apt-get install -y libopenblas0-pthread"

_lock = threading.Lock()
_state: dict[str, str] = {}


def ensure_openblas() -> str:
    """Preload OpenBLAS once (RTLD_GLOBAL) and return a one-line status; warns when it is missing on Linux.

    Must run before the first `import mlx.core` to take effect; later calls only report.
    """
    with _lock:
        if "status" in _state:
            return _state["status"]
        if platform.system() != "Linux":
            status = "not needed (MLX uses Accelerate/Metal on macOS)"
        elif "mlx.core" in sys.modules:
            status = "too late: mlx.core was imported before OpenBLAS could be preloaded"
            _log.warning("OpenBLAS %s; MLX CPU matmuls will be slow", status)
        else:
            status = _preload()
        _state["status"] = status
        return status


def _preload() -> str:
    for candidate in CANDIDATES:
        if Path(candidate).exists():
            try:
                ctypes.CDLL(candidate, mode=ctypes.RTLD_GLOBAL)
            except OSError as error:
                _log.warning("could not load %s: %s", candidate, error)
                continue
            _log.info("OpenBLAS preloaded from %s", candidate)
            return f"loaded {candidate}"
    _log.warning(
        "OpenBLAS (libopenblas0-pthread) not found: MLX on the CPU will be ~30x slower. Install it: %s",
        INSTALL_HINT,
    )
    return f"missing; install with: {INSTALL_HINT}"
