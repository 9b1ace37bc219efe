"""The tenant key, tenant-bound token files, tenant layout (folders and PostgreSQL schemas) and the open-tenant
registry's LRU rules."""

from __future__ import annotations

import itertools
import threading
from pathlib import Path

import pytest

from memoryd.config import ServiceSettings, parse_settings
from memoryd.tenancy.handlers import TenantServices
from memoryd.tenancy.layout import MAX_SCHEMA_CHARS, tenant_home, tenant_schema, tenant_settings
from memoryd.tenancy.registry import TenantRegistry
from servicekit.errors import FailedPreconditionError, InvalidArgumentError, UnavailableError
from servicekit.tenancy import (
    DEFAULT_TENANT,
    TENANT_METADATA_KEY,
    bound_tenant_var,
    effective_tenant,
    requested_tenant,
)
from servicekit.tenant_tokens import TenantToken, TenantTokensError, parse_tenant_tokens
from servicekit.tls import TransportConfigError, load_transport


def test_tenant_key_rules() -> None:
    assert requested_tenant([]) is None
    assert requested_tenant([(TENANT_METADATA_KEY, "")]) is None
    assert requested_tenant([("other", "x"), (TENANT_METADATA_KEY, "acme-1_b")]) == "acme-1_b"
    assert requested_tenant([(TENANT_METADATA_KEY, "a" * 48)]) == "a" * 48
    for bad in ("A", "a" * 49, "-a", "_a", "a.b", "a/b", "../a", "a b", "ü"):
        with pytest.raises(InvalidArgumentError) as caught:
            requested_tenant([(TENANT_METADATA_KEY, bad)])
        assert caught.value.reason == "INVALID_TENANT"
    with pytest.raises(InvalidArgumentError):
        requested_tenant([(TENANT_METADATA_KEY, "a"), (TENANT_METADATA_KEY, "b")])
    assert requested_tenant([(TENANT_METADATA_KEY, "a"), (TENANT_METADATA_KEY, "a")]) == "a"


def test_effective_tenant_prefers_the_header_then_the_bound_token() -> None:
    assert effective_tenant(()) == DEFAULT_TENANT
    token = bound_tenant_var.set("bound")
    try:
        assert effective_tenant(()) == "bound"
        assert effective_tenant([(TENANT_METADATA_KEY, "bound")]) == "bound"
    finally:
        bound_tenant_var.reset(token)


def test_tenant_tokens_file_format() -> None:
    text = "# comment\n\nacme tok-a\nacme tok-b admin\n  globex   tok-c  \n"
    assert parse_tenant_tokens(text) == (
        TenantToken("acme", "tok-a"),
        TenantToken("acme", "tok-b", admin=True),
        TenantToken("globex", "tok-c"),
    )
    assert "tok-a" not in repr(parse_tenant_tokens(text))
    for bad in ("acme", "acme tok extra", "Acme tok", "acme tok\nglobex tok", "acme tok root"):
        with pytest.raises(TenantTokensError) as caught:
            parse_tenant_tokens(bad)
        assert "tok" not in str(caught.value).replace("token", "")  # never the token itself


def test_load_transport_reads_tenant_tokens(tmp_path: Path) -> None:
    tokens, runtime = tmp_path / "tenants", tmp_path / "runtime"
    tokens.write_text("acme tok-a\n")
    runtime.write_text("tok-r\n")
    env = {"OSAURUS_TENANT_TOKENS_FILE": str(tokens), "OSAURUS_AUTH_TOKEN_FILE": str(runtime)}
    assert load_transport(env).tenant_tokens == (TenantToken("acme", "tok-a"),)
    runtime.write_text("tok-a\n")
    with pytest.raises(TransportConfigError):
        load_transport(env)
    tokens.write_text("acme\n")
    with pytest.raises(TransportConfigError):
        load_transport(env)
    with pytest.raises(TransportConfigError):
        load_transport({"OSAURUS_TENANT_TOKENS_FILE": str(tmp_path / "missing")})


def test_layout_keeps_the_default_tenant_at_home(tmp_path: Path) -> None:
    settings = ServiceSettings(home=tmp_path, port_file=tmp_path / "port")
    assert tenant_settings(settings, DEFAULT_TENANT) is settings
    assert tenant_home(tmp_path, DEFAULT_TENANT) == tmp_path
    settings.config_path.parent.mkdir(parents=True)
    settings.config_path.write_text('{"memoryBudgetTokens": 500}\n')
    acme = tenant_settings(settings, "acme")
    assert acme.home == tmp_path / "tenants" / "acme" and acme.port_file is None
    assert acme.database_path == tmp_path / "tenants" / "acme" / "memory" / "memory.sqlite"
    assert acme.keys_dir == tmp_path / "tenants" / "acme" / "keys"
    assert acme.config_path.read_text() == '{"memoryBudgetTokens": 500}\n'  # seeded from the default tenant
    acme.config_path.write_text("{}\n")
    assert tenant_settings(settings, "acme").config_path.read_text() == "{}\n"  # then the tenant's own
    assert (tmp_path / "tenants" / "acme").stat().st_mode & 0o777 == 0o700
    with pytest.raises(InvalidArgumentError):
        tenant_settings(settings, "../escape")


def test_schema_names_are_distinct_and_fit_postgres() -> None:
    alphabet = "a_-"
    ids = ["".join(p) for n in range(1, 6) for p in itertools.product(alphabet, repeat=n) if p[0] == "a"]
    ids += ["a" * 48, "a" + "_" * 47, "a" + "-" * 47, "a" + "_" * 46 + "b", "z9" * 24]
    schemas = [tenant_schema(t) for t in ids]
    assert len(set(schemas)) == len(ids)
    assert all(len(s) <= MAX_SCHEMA_CHARS and s.startswith("tenant_") for s in schemas)
    assert all(s.replace("_", "").isalnum() and s == s.lower() for s in schemas)
    assert tenant_schema("acme") == "tenant_acme"


def test_max_open_tenants_setting() -> None:
    assert parse_settings([], env={}).max_open_tenants == 16
    assert parse_settings([], env={"OSAURUS_MEMORYD_MAX_OPEN_TENANTS": "0"}).max_open_tenants == 0


class _Opened:
    """Records opens and closes of tenants (their services have no handlers: the registry never calls them)."""

    def __init__(self) -> None:
        self.log: list[str] = []

    def open(self, tenant: str) -> TenantServices:
        self.log.append(f"open {tenant}")
        return TenantServices({}, lambda: self.log.append(f"close {tenant}"))


def test_registry_closes_the_least_recently_used_idle_tenant() -> None:
    opened = _Opened()
    default = TenantServices({}, lambda: opened.log.append("close default"))
    registry = TenantRegistry(default, opened.open, max_open=2)
    with registry.use(DEFAULT_TENANT) as services:
        assert services is default
    for tenant in ("a", "b", "a", "c"):
        with registry.use(tenant):
            pass
    assert opened.log == ["open a", "open b", "close b", "open c"]  # b was least recently used, not a
    with registry.use("a"), registry.use("c"), registry.use("d"):
        # Every open tenant busy: the cap is exceeded rather than a busy tenant closed.
        assert registry.open_tenants == ["a", "c", "d"]
    with registry.use("e"):
        assert registry.open_tenants == ["d", "e"]
    registry.close()
    assert sorted(opened.log[-2:]) == ["close d", "close e"] and "close default" not in opened.log
    with pytest.raises(UnavailableError), registry.use("a"):
        pass


def test_registry_off_refuses_named_tenants() -> None:
    registry = TenantRegistry(TenantServices({}, lambda: None), _Opened().open, max_open=0)
    with pytest.raises(FailedPreconditionError) as caught, registry.use("a"):
        pass
    assert caught.value.reason == "TENANTS_DISABLED"


def test_registry_reopens_only_after_the_close_finished() -> None:
    """A tenant closing (slowly) is not opened a second time until its close is done: one graph per store."""
    events: list[str] = []
    closing = threading.Event()
    release = threading.Event()

    def open_tenant(tenant: str) -> TenantServices:
        events.append(f"open {tenant}")

        def close() -> None:
            closing.set()
            release.wait(5)
            events.append(f"closed {tenant}")

        return TenantServices({}, close)

    registry = TenantRegistry(TenantServices({}, lambda: None), open_tenant, max_open=1)
    with registry.use("a"):
        pass
    evicting = threading.Thread(target=lambda: registry.use("b").__enter__())
    evicting.start()
    assert closing.wait(5)
    reopening = threading.Thread(target=lambda: registry.use("a").__enter__())
    reopening.start()
    reopening.join(0.3)
    assert events == ["open a"]  # "a" is still closing: neither b's open nor a's reopen ran yet
    release.set()
    evicting.join(5)
    reopening.join(5)
    assert events[:3] == ["open a", "closed a", "open b"] and events.count("open a") == 2


def test_a_failed_open_is_unavailable_with_a_reason() -> None:
    def broken(tenant: str) -> TenantServices:
        raise OSError("disk on fire")

    registry = TenantRegistry(TenantServices({}, lambda: None), broken, max_open=4)
    with pytest.raises(UnavailableError) as caught, registry.use("a"):
        pass
    assert caught.value.reason == "TENANT_UNAVAILABLE" and "fire" not in caught.value.message
