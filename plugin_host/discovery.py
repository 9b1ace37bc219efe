"""Plugin discovery: folders with a plugin.json, and installed packages' `osaurus.plugins` entry points."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from plugin_host.manifest import MANIFEST_FILE, Manifest, ManifestError, parse_manifest

ENTRY_POINT_GROUP = "osaurus.plugins"
_MAX_FILES_HASHED = 2000
_log = logging.getLogger("plugin_host.discovery")

#: Imports an entry point in a throwaway process and returns its manifest: (entry point, import paths) -> dict.
ManifestProbe = Callable[[str, Sequence[str]], Mapping[str, Any]]


@dataclass(frozen=True)
class Candidate:
    """One discovered plugin, loadable or not."""

    name: str
    source: str
    """"entry_point:<name>" or the plugin folder's path."""
    manifest: Manifest | None
    """None when the manifest could not be read; `error` says why."""
    error: str
    import_paths: tuple[str, ...]
    """Directories the plugin process puts first on sys.path."""
    fingerprint: str
    """Changes when the plugin's code or manifest changes (ReloadPlugins restarts it then)."""


def discover(
    dirs: Sequence[Path],
    *,
    entry_points: bool,
    entry_point_paths: Sequence[str] = (),
    probe: ManifestProbe | None = None,
) -> list[Candidate]:
    """Every plugin found, first occurrence of a name wins (folders in order, then entry points)."""
    found = [c for d in dirs for c in discover_folders(d)]
    if entry_points and probe is not None:
        found.extend(discover_entry_points(probe, entry_point_paths))
    unique: dict[str, Candidate] = {}
    for candidate in found:
        if candidate.name in unique:
            _log.warning(
                "plugin %r from %s ignored: the name is taken by %s",
                candidate.name,
                candidate.source,
                unique[candidate.name].source,
            )
            continue
        unique[candidate.name] = candidate
    return list(unique.values())


def discover_folders(root: Path) -> list[Candidate]:
    """Plugin folders in `root` (each a directory with a plugin.json), or `root` itself if it is one."""
    if (root / MANIFEST_FILE).is_file():
        return [read_folder(root)]
    if not root.is_dir():
        return []
    return [read_folder(child) for child in sorted(root.iterdir()) if (child / MANIFEST_FILE).is_file()]


def read_folder(folder: Path) -> Candidate:
    """Read one plugin folder's manifest; a bad manifest becomes a Candidate with an error."""
    source = str(folder.resolve())
    try:
        raw = (folder / MANIFEST_FILE).read_text(encoding="utf-8")
        manifest = parse_manifest(json.loads(raw))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        reason = str(error) if isinstance(error, ManifestError) else f"{MANIFEST_FILE} is not valid JSON"
        return Candidate(folder.name, source, None, f"bad manifest: {reason}", (source,), "")
    return Candidate(manifest.name, source, manifest, "", (source,), _folder_fingerprint(folder, raw))


def discover_entry_points(probe: ManifestProbe, paths: Sequence[str] = ()) -> list[Candidate]:
    """Entry points of group `osaurus.plugins` in installed distributions (in `paths` if given)."""
    distributions: Iterable[metadata.Distribution] = (
        metadata.distributions(path=list(paths)) if paths else metadata.distributions()
    )
    found: list[Candidate] = []
    for dist in distributions:
        for entry in dist.entry_points:
            if entry.group == ENTRY_POINT_GROUP:
                found.append(_entry_candidate(dist, entry, probe))
    return found


def _entry_candidate(
    dist: metadata.Distribution, entry: metadata.EntryPoint, probe: ManifestProbe
) -> Candidate:
    source = f"entry_point:{entry.name}"
    location = str(dist.locate_file(""))
    fingerprint = _digest([dist.metadata["Name"] or "", dist.version, entry.value, location])
    try:
        data = dict(probe(entry.value, [location]))
        data["entry_point"] = entry.value
        data.pop("commands", None)
        manifest = parse_manifest(data)
    except ManifestError as error:
        return Candidate(entry.name, source, None, f"bad manifest: {error}", (location,), fingerprint)
    except Exception as error:
        return Candidate(
            entry.name, source, None, f"probe failed: {type(error).__name__}", (location,), fingerprint
        )
    if manifest.name != entry.name:
        error_text = f"entry point name {entry.name!r} differs from the plugin's name {manifest.name!r}"
        return Candidate(entry.name, source, None, error_text, (location,), fingerprint)
    return Candidate(manifest.name, source, manifest, "", (location,), fingerprint)


def _folder_fingerprint(folder: Path, manifest_text: str) -> str:
    parts = [manifest_text]
    count = 0
    for directory, subdirs, files in os.walk(folder):
        subdirs[:] = sorted(d for d in subdirs if d != "__pycache__" and not d.startswith("."))
        for name in sorted(files):
            if count >= _MAX_FILES_HASHED:
                break
            path = Path(directory) / name
            try:
                stat = path.stat()
            except OSError:
                continue
            parts.append(f"{path.relative_to(folder)}:{stat.st_size}:{stat.st_mtime_ns}")
            count += 1
    return _digest(parts)


def _digest(parts: Sequence[str]) -> str:
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:16]
