"""Where a tenant's data lives: the default tenant is today's $OSAURUS_HOME; tenant `t` is
$OSAURUS_HOME/tenants/t, laid out exactly like a home (memory/, keys/, quarantine/, config/memory.json).

On PostgreSQL (OSAURUS_MEMORYD_DATABASE_URL) a tenant's tables are a schema of its own (tenant_schema) in the
deployment's database; its folder then holds only its memory.json.
"""

from __future__ import annotations

import dataclasses
import hashlib
import shutil
from pathlib import Path

from memoryd.config import ServiceSettings
from memoryd.storage.private import private_folder
from servicekit.tenancy import DEFAULT_TENANT, check_tenant

TENANTS_FOLDER = "tenants"
SCHEMA_PREFIX = "tenant_"
#: PostgreSQL truncates identifiers beyond 63 bytes.
MAX_SCHEMA_CHARS = 63


def tenant_home(home: Path, tenant: str) -> Path:
    """The home of `tenant` under the deployment's home (the home itself for the default tenant)."""
    if tenant == DEFAULT_TENANT:
        return home
    return home / TENANTS_FOLDER / check_tenant(tenant)


def tenant_schema(tenant: str) -> str:
    """The PostgreSQL schema holding `tenant`'s tables: a lower-case identifier that needs no quoting, distinct for
    distinct tenants ('_' is doubled and '-' becomes '_h', so no two ids meet; an id whose escaped form is longer
    than PostgreSQL's 63 bytes is named by its SHA-256 after `tenant__`, which no escaped id starts with)."""
    check_tenant(tenant)
    escaped = SCHEMA_PREFIX + tenant.replace("_", "__").replace("-", "_h")
    if len(escaped) <= MAX_SCHEMA_CHARS:
        return escaped
    digest = hashlib.sha256(tenant.encode()).hexdigest()
    return (SCHEMA_PREFIX + "_" + digest)[:MAX_SCHEMA_CHARS]


def tenant_settings(settings: ServiceSettings, tenant: str) -> ServiceSettings:
    """The deployment's settings with `tenant`'s home: its own store, vectors, keys, quarantine and memory.json.

    A new tenant's memory.json starts as a copy of the default tenant's (the deployment's choice of models and
    budgets), and is the tenant's own from then on.
    """
    if tenant == DEFAULT_TENANT:
        return settings
    home = tenant_home(settings.home, tenant)
    fresh = tenant_settings_for_home(settings, home)
    if settings.is_postgres:
        # The deployment's database, the tenant's own schema; the folder keeps its memory.json.
        fresh = dataclasses.replace(fresh, database_schema=tenant_schema(tenant))
    if not fresh.config_path.exists() and settings.config_path.exists():
        private_folder(fresh.config_path.parent)
        shutil.copyfile(settings.config_path, fresh.config_path)
    return fresh


def tenant_settings_for_home(settings: ServiceSettings, home: Path) -> ServiceSettings:
    """`settings` moved to `home`, without what belongs to the process alone (port file, memory trace)."""
    private_folder(home)
    return dataclasses.replace(settings, home=home, port_file=None, memory_trace=None)


__all__ = ["SCHEMA_PREFIX", "TENANTS_FOLDER", "tenant_home", "tenant_schema", "tenant_settings"]
