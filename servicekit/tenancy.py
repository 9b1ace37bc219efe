"""The tenant key: request metadata `x-osaurus-tenant` naming whose data a call acts on.

Absent (or empty) means the default tenant, which is a single-user deployment's only one. A present value must be
1-48 characters of `a-z`, `0-9`, `_` and `-`, starting with a letter or digit (it names a folder and a PostgreSQL
schema, so nothing else is accepted); anything else is INVALID_ARGUMENT (INVALID_TENANT). The name `default` is the
default tenant itself.

A bearer token bound to a tenant (servicekit.tenant_tokens) puts its tenant in `bound_tenant_var` for the call, so
a call without the header acts on the token's tenant.

A service that calls memoryd for many tenants over one channel (plugin_host) names each call's tenant with
`calls_for_tenant(tenant)`: servicekit.channel adds it to the calls made inside the block on channels that have no
tenant of their own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from servicekit.errors import InvalidArgumentError

#: The gRPC metadata key (lower case, as gRPC requires); the gateway's HTTP header is X-Osaurus-Tenant.
TENANT_METADATA_KEY = "x-osaurus-tenant"
#: The tenant of calls that name none: today's single user, with today's files.
DEFAULT_TENANT = "default"
MAX_TENANT_CHARS = 48
_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,47}")

#: The tenant of the bearer token that authenticated the call being served (None: an unbound token or none).
bound_tenant_var: ContextVar[str | None] = ContextVar("bound_tenant", default=None)
#: The tenant outgoing calls made in a calls_for_tenant block act on (None: the channel's own, else none named).
call_tenant_var: ContextVar[str | None] = ContextVar("call_tenant", default=None)


def is_valid_tenant(value: str) -> bool:
    """True when `value` is an acceptable tenant id."""
    return _PATTERN.fullmatch(value) is not None


def check_tenant(value: str) -> str:
    """`value` when it is an acceptable tenant id; InvalidArgumentError (INVALID_TENANT) otherwise."""
    if not is_valid_tenant(value):
        raise InvalidArgumentError(
            "INVALID_TENANT",
            f"{TENANT_METADATA_KEY} must be 1-{MAX_TENANT_CHARS} characters of a-z, 0-9, '_' and '-', starting "
            "with a letter or digit",
            metadata={"key": TENANT_METADATA_KEY},
        )
    return value


def requested_tenant(metadata: Iterable[tuple[str, Any]] | None) -> str | None:
    """The tenant the call's metadata names (validated), None when it names none.

    Repeated keys must agree: two different tenants in one call are INVALID_TENANT, never a guess.
    """
    values = {str(value) for key, value in (metadata or ()) if key == TENANT_METADATA_KEY}
    values.discard("")
    if not values:
        return None
    if len(values) > 1:
        raise InvalidArgumentError(
            "INVALID_TENANT",
            f"the call names more than one tenant in {TENANT_METADATA_KEY}",
            metadata={"key": TENANT_METADATA_KEY},
        )
    return check_tenant(values.pop())


def effective_tenant(metadata: Iterable[tuple[str, Any]] | None) -> str:
    """Whose data the call acts on: the named tenant, else the bound token's, else the default tenant.

    The bearer interceptor has already refused a bound token naming another tenant.
    """
    return requested_tenant(metadata) or bound_tenant_var.get() or DEFAULT_TENANT


@contextmanager
def calls_for_tenant(tenant: str | None) -> Iterator[None]:
    """Outgoing calls made in this block (on channels without a tenant of their own) name `tenant`; None or the
    default tenant names none, which is the default tenant."""
    value = None if tenant in (None, "", DEFAULT_TENANT) else check_tenant(tenant)
    token = call_tenant_var.set(value)
    try:
        yield
    finally:
        call_tenant_var.reset(token)


__all__ = [
    "DEFAULT_TENANT",
    "MAX_TENANT_CHARS",
    "TENANT_METADATA_KEY",
    "bound_tenant_var",
    "call_tenant_var",
    "calls_for_tenant",
    "check_tenant",
    "effective_tenant",
    "is_valid_tenant",
    "requested_tenant",
]
