"""OpenBLAS preload: loaded before MLX when installed; a clear warning with the install command when it is not."""

from __future__ import annotations

import logging
import platform
from pathlib import Path

import pytest

from inferd.backends import blas


@pytest.mark.skipif(platform.system() != "Linux", reason="macOS uses Accelerate/Metal")
def test_preloaded_before_mlx_when_installed() -> None:
    if not any(Path(c).exists() for c in blas.CANDIDATES):
        pytest.skip("libopenblas0-pthread is not installed here")
    status = blas.ensure_openblas()
    assert status.startswith("loaded "), (
        status
    )  # not "too late": nothing imported mlx.core before inferd.backends


def test_missing_library_warns_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(blas, "CANDIDATES", ("/nonexistent/libopenblas.so.0",))
    with caplog.at_level(logging.WARNING, logger="inferd.blas"):
        status = blas._preload()
    assert status == "missing; install with: sudo apt-get install -y libopenblas0-pthread"
    assert "~30x slower" in caplog.text and "apt-get install -y libopenblas0-pthread" in caplog.text
