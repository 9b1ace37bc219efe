"""Private files whatever the umask: every file memoryd writes under its home is 0600, every folder 0700."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd.storage.store import open_store
from tests.support.console_rig import console_rig


@pytest.fixture
def open_umask() -> Iterator[None]:
    """The usual desktop umask (022), or a careless one (000): neither may widen memoryd's files."""
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def _modes(home: Path) -> dict[str, int]:
    found = {".": stat.S_IMODE(home.stat().st_mode)}
    for path in home.rglob("*"):
        found[str(path.relative_to(home))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def _wrong(modes: dict[str, int], home: Path) -> dict[str, str]:
    wrong = {}
    for name, mode in modes.items():
        want = 0o700 if (home / name).is_dir() else 0o600
        if mode != want:
            wrong[name] = oct(mode)
    return wrong


@pytest.mark.parametrize("umask", [0o022, 0o000])
def test_every_file_is_0600_and_every_folder_0700(tmp_path: Path, umask: int, open_umask: None) -> None:
    os.umask(umask)
    home = tmp_path / "home"
    with console_rig(home) as rig:
        rig.turn("agent-1", "I grow tomatoes on the balcony", "Nice")
        rig.index()
        rig.memoryd.app.vectors.flush()  # the index files under memory/vectors/<agent>/
        rig.client.update_config({"salience_floor": 0.1})  # config/memory.json
        modes = _modes(home)
        assert "memory/memory.sqlite-wal" in modes and any("vectors/" in name for name in modes)
    assert _wrong(modes, home) == {}


def test_an_existing_world_readable_store_is_tightened_on_open(tmp_path: Path) -> None:
    path = tmp_path / "memory" / "memory.sqlite"
    open_store(path).close()
    for target in (path, path.parent):
        target.chmod(0o755 if target.is_dir() else 0o644)
    open_store(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
