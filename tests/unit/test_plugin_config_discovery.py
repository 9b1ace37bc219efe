"""plugin_host settings (flags over env) and folder discovery without starting anything."""

from __future__ import annotations

import json
from pathlib import Path

from plugin_host.config import load_settings
from plugin_host.discovery import discover, discover_folders


def test_flags_and_environment(tmp_path: Path) -> None:
    env = {
        "OSAURUS_HOME": str(tmp_path),
        "OSAURUS_PLUGIN_DIRS": f"{tmp_path / 'a'}:{tmp_path / 'b'}",
        "OSAURUS_AUTH_TOKEN_FILE": "",
        "PATH": "/usr/bin",
        "SECRET_THING": "x",
    }
    settings = load_settings(["--plugin-dir", str(tmp_path / "c"), "--plugin-timeout-s", "7"], env=env)

    assert settings.plugin_dirs == (tmp_path / "plugins", tmp_path / "a", tmp_path / "b", tmp_path / "c")
    assert settings.grants_file == tmp_path / "config" / "plugins.json"
    assert settings.supervisor.call_timeout_s == 7.0
    assert settings.load_entry_points
    assert dict(settings.plugin_env) == {"PATH": "/usr/bin"}, "only allow-listed variables reach plugins"
    assert not load_settings(["--no-entry-points"], env=env).load_entry_points
    assert not load_settings([], env={**env, "OSAURUS_PLUGIN_ENTRY_POINTS": "0"}).load_entry_points


def _plugin(root: Path, folder: str, manifest: dict[str, object] | str) -> Path:
    path = root / folder
    path.mkdir(parents=True)
    text = manifest if isinstance(manifest, str) else json.dumps(manifest)
    (path / "plugin.json").write_text(text)
    return path


def test_folders_are_discovered_with_errors_reported(tmp_path: Path) -> None:
    _plugin(tmp_path, "good", {"name": "good", "entry_point": "good:Good"})
    _plugin(tmp_path, "broken", "{nope")
    (tmp_path / "not-a-plugin").mkdir()

    found = {c.name: c for c in discover_folders(tmp_path)}

    assert sorted(found) == ["broken", "good"]
    assert found["good"].manifest is not None and found["good"].error == ""
    assert found["good"].import_paths == (str((tmp_path / "good").resolve()),)
    assert (
        found["broken"].manifest is None
        and found["broken"].error == "bad manifest: plugin.json is not valid JSON"
    )


def test_a_directory_can_be_one_plugin_and_first_name_wins(tmp_path: Path) -> None:
    first = _plugin(tmp_path / "one", "p", {"name": "same", "entry_point": "a:A"})
    _plugin(tmp_path / "two", "p", {"name": "same", "entry_point": "b:B"})

    found = discover([first, tmp_path / "two", tmp_path / "missing"], entry_points=False)

    assert [(c.name, c.manifest.entry_point if c.manifest else "") for c in found] == [("same", "a:A")]


def test_fingerprint_changes_with_code(tmp_path: Path) -> None:
    folder = _plugin(tmp_path, "p", {"name": "p", "entry_point": "p:P"})
    (folder / "p.py").write_text("x = 1\n")
    before = discover_folders(folder)[0].fingerprint
    assert discover_folders(folder)[0].fingerprint == before
    (folder / "p.py").write_text("x = 22\n")
    assert discover_folders(folder)[0].fingerprint != before
