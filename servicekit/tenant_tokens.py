"""Bearer tokens bound to one tenant: the file named by OSAURUS_TENANT_TOKENS_FILE.

One token a line, `<tenant> <token>` or `<tenant> <token> admin`; blank lines and lines starting with `#` are
ignored. A bound token authenticates calls for its tenant only: a call naming another tenant in x-osaurus-tenant is
PERMISSION_DENIED (TENANT_NOT_ALLOWED), a call naming none acts on the token's tenant. `admin` lets the token also
call the admin methods (the memory console) when an admin token is configured, still for its tenant only. A tenant
may have several tokens (rotation); a token may appear once and must differ from OSAURUS_AUTH_TOKEN_FILE's and
OSAURUS_ADMIN_TOKEN_FILE's. The file is read at start-up; nothing in it is ever logged.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from servicekit.tenancy import is_valid_tenant


class TenantTokensError(ValueError):
    """A malformed tenant tokens file; the message names the line, never a token."""


@dataclass(frozen=True)
class TenantToken:
    """One token bound to a tenant. repr hides the token."""

    tenant: str
    token: str
    admin: bool = False

    def __repr__(self) -> str:
        return f"TenantToken(tenant={self.tenant!r}, admin={self.admin})"


def parse_tenant_tokens(text: str, source: str = "tenant tokens file") -> tuple[TenantToken, ...]:
    """The bound tokens in `text`; TenantTokensError for a malformed line or a token listed twice."""
    tokens: list[TenantToken] = []
    seen: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] != "admin"):
            raise TenantTokensError(f"{source} line {number}: expected '<tenant> <token> [admin]'")
        tenant, token = parts[0], parts[1]
        if not is_valid_tenant(tenant):
            raise TenantTokensError(f"{source} line {number}: {tenant!r} is not a valid tenant id")
        if token in seen:
            raise TenantTokensError(f"{source} line {number}: this token is already listed")
        seen.add(token)
        tokens.append(TenantToken(tenant, token, admin=len(parts) == 3))
    return tuple(tokens)


def load_tenant_tokens(path: Path | None) -> tuple[TenantToken, ...]:
    """The bound tokens in the file at `path` (none without a file); TenantTokensError when unreadable."""
    if path is None:
        return ()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise TenantTokensError(f"cannot read {path}: {type(error).__name__}") from error
    return parse_tenant_tokens(text, str(path))


__all__ = ["TenantToken", "TenantTokensError", "load_tenant_tokens", "parse_tenant_tokens"]
