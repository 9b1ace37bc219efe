"""Manifests and the operator's grants: validation, nothing granted by default, requested ∩ granted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from plugin_host.grants import Grant, GrantsError, canonical_agent, effective_access, load_grants
from plugin_host.manifest import ManifestError, parse_manifest
from plugin_host.sdk import Permission

UUID = "0f8fad5b-d9cb-469f-a165-70867728950e"


def _manifest(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "notes",
        "version": "1.0",
        "entry_point": "notes.plugin:Notes",
        "permissions": ["inference"],
        "agents": ["*"],
    }
    data.update(changes)
    return data


def test_manifest_parses_with_defaults() -> None:
    manifest = parse_manifest({"name": "x", "entry_point": "m:C"})
    assert (manifest.version, manifest.permissions, manifest.agents) == ("0.0.0", (), ("*",))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"name": "Has Spaces"}, "name"),
        ({"name": None}, "name is required"),
        ({"entry_point": "no_colon"}, "entry_point"),
        ({"permissions": ["root"]}, "unknown permission 'root'"),
        ({"permissions": "inference"}, "permissions must be a list"),
        ({"agents": ["has space"]}, "agent id"),
        ({"surprise": 1}, "unknown manifest keys: surprise"),
        ({"version": 3}, "version must be a string"),
    ],
)
def test_manifest_errors_name_the_field(changes: dict[str, Any], message: str) -> None:
    data = _manifest(**changes)
    if changes.get("name", "") is None:
        del data["name"]
    with pytest.raises(ManifestError, match=message):
        parse_manifest(data)


def test_missing_grants_file_grants_nothing(tmp_path: Path) -> None:
    manifest = parse_manifest(_manifest())
    assert load_grants(tmp_path / "plugins.json") == {}
    access = effective_access(manifest, None)
    assert not access.has_agents and not access.allows(Permission.INFERENCE)


def test_access_is_requested_intersect_granted(tmp_path: Path) -> None:
    path = tmp_path / "plugins.json"
    path.write_text(json.dumps({"plugins": {
        "notes": {"permissions": ["inference", "memory_search"], "agents": ["work", UUID.lower()]},
    }}))  # fmt: skip
    grants = load_grants(path)
    manifest = parse_manifest(_manifest(agents=["work", "home", UUID.upper()]))

    access = effective_access(manifest, grants["notes"])

    assert access.permissions == {Permission.INFERENCE}, "memory_search was granted but not requested"
    assert (
        access.allows_agent("work")
        and access.allows_agent(UUID.lower())
        and access.allows_agent(UUID.upper())
    )
    assert not access.allows_agent("home"), "requested but not granted"


def test_wildcards_on_either_side() -> None:
    any_manifest = parse_manifest(_manifest(agents=["*"]))
    listed_manifest = parse_manifest(_manifest(agents=["a", "b"]))
    grant_listed = Grant(permissions=frozenset({Permission.INFERENCE}), agents=frozenset({"a"}))
    grant_any = Grant(permissions=frozenset({Permission.INFERENCE}), agents=frozenset({"*"}))

    assert effective_access(any_manifest, grant_listed).agents == {"a"}
    assert effective_access(listed_manifest, grant_any).agents == {"a", "b"}
    assert effective_access(any_manifest, grant_any).allows_agent("anyone")
    assert not effective_access(any_manifest, Grant(enabled=False, agents=frozenset({"*"}))).has_agents


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{oops", "not readable JSON"),
        ('{"plugins": []}', '"plugins" object'),
        ('{"plugins": {"x": {"agents": "all"}}}', "plugins.x.agents"),
        ('{"plugins": {"x": {"permissions": ["sudo"]}}}', "unknown permission"),
        ('{"plugins": {"x": {"call_timeout_s": -1}}}', "call_timeout_s"),
        ('{"plugins": {"x": {"enabled": "yes"}}}', "enabled"),
        ('{"plugins": {"x": {"agent": ["a"]}}}', "unknown keys agent"),
    ],
)
def test_malformed_grants_are_refused(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "plugins.json"
    path.write_text(content)
    with pytest.raises(GrantsError, match=message):
        load_grants(path)


def test_canonical_agent_upper_cases_uuids_only() -> None:
    assert canonical_agent(UUID) == UUID.upper()
    assert canonical_agent("My-Agent") == "My-Agent"
