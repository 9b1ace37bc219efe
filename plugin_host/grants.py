"""The operator's grants ($OSAURUS_HOME/config/plugins.json) and the access they give each plugin.

    {"plugins": {"note-taker": {"enabled": true, "permissions": ["inference"], "agents": ["work"],
                                "call_timeout_s": 30}}}

Nothing is granted by default: a plugin missing from the file is discovered but never started.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plugin_host.manifest import ANY_AGENT, Manifest
from plugin_host.sdk import Permission

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_GRANT_KEYS = frozenset({"enabled", "permissions", "agents", "call_timeout_s"})


class GrantsError(ValueError):
    """plugins.json is malformed; the message names the plugin and key."""


@dataclass(frozen=True)
class Grant:
    """What the operator granted one plugin."""

    enabled: bool = True
    permissions: frozenset[Permission] = frozenset()
    agents: frozenset[str] = frozenset()
    call_timeout_s: float | None = None


@dataclass(frozen=True)
class Access:
    """What a plugin may do: the intersection of what it asked for and what the operator granted."""

    permissions: frozenset[Permission]
    agents: frozenset[str]
    """Canonical agent ids, or {"*"} for any agent."""

    def allows(self, permission: Permission) -> bool:
        """Whether the plugin holds `permission`."""
        return permission in self.permissions

    def allows_agent(self, agent_id: str) -> bool:
        """Whether the plugin may act for `agent_id`."""
        return ANY_AGENT in self.agents or canonical_agent(agent_id) in self.agents

    @property
    def has_agents(self) -> bool:
        """Whether the plugin may act for any agent at all (a plugin without agents is not started)."""
        return bool(self.agents)


NO_ACCESS = Access(frozenset(), frozenset())


def canonical_agent(agent_id: str) -> str:
    """The agent id memoryd stores: UUIDs upper-cased, anything else unchanged."""
    return agent_id.upper() if _UUID.match(agent_id) else agent_id


def effective_access(manifest: Manifest, grant: Grant | None) -> Access:
    """Requested ∩ granted, for permissions and for agents ("*" on one side means the other side's list)."""
    if grant is None or not grant.enabled:
        return NO_ACCESS
    permissions = frozenset(manifest.permissions) & grant.permissions
    requested = {canonical_agent(a) for a in manifest.agents}
    granted = {canonical_agent(a) for a in grant.agents}
    if ANY_AGENT in requested:
        agents = granted
    elif ANY_AGENT in granted:
        agents = requested
    else:
        agents = requested & granted
    return Access(permissions, frozenset(agents))


def load_grants(path: Path) -> dict[str, Grant]:
    """Read plugins.json; a missing file grants nothing. Raises GrantsError for a malformed file."""
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise GrantsError(f"{path.name} is not readable JSON: {type(error).__name__}") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("plugins", {}), Mapping):
        raise GrantsError(f'{path.name} must be an object with a "plugins" object')
    return {str(name): _grant(str(name), entry) for name, entry in data.get("plugins", {}).items()}


def _grant(name: str, entry: Any) -> Grant:
    if not isinstance(entry, Mapping):
        raise GrantsError(f"plugins.{name} must be an object")
    unknown = sorted(set(entry) - _GRANT_KEYS)
    if unknown:
        raise GrantsError(f"plugins.{name}: unknown keys {', '.join(unknown)}")
    enabled = entry.get("enabled", True)
    if not isinstance(enabled, bool):
        raise GrantsError(f"plugins.{name}.enabled must be true or false")
    permissions = entry.get("permissions", [])
    agents = entry.get("agents", [])
    for key, value in (("permissions", permissions), ("agents", agents)):
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise GrantsError(f"plugins.{name}.{key} must be a list of non-empty strings")
    try:
        granted = frozenset(Permission(p) for p in permissions)
    except ValueError:
        raise GrantsError(f"plugins.{name}.permissions has an unknown permission") from None
    timeout = entry.get("call_timeout_s")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
    ):
        raise GrantsError(f"plugins.{name}.call_timeout_s must be a positive number")
    return Grant(enabled, granted, frozenset(agents), float(timeout) if timeout is not None else None)
