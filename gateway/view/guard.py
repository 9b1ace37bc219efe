"""Cross-site protection for the Memory view: a Host allowlist, a same-origin check and a per-page CSRF token.

The view runs on loopback, where the usual attacker is a web page the user has open in the same browser. Three
checks stop it, each for its own trick:
- Host must be a loopback name (or one the app allows): a DNS-rebinding page would otherwise be same-origin and
  could read the page, token included.
- State-changing requests must come from this origin (`Sec-Fetch-Site: same-origin` and a matching `Origin` when the
  browser sends them): a cross-site form or fetch is refused before it reaches memoryd. API reads another site
  asked for (Sec-Fetch-Site cross-site or same-site) are refused too.
- They must also carry `X-CSRF-Token`, minted into each served page. A custom header forces a CORS preflight that
  the gateway never grants, and the token is an HMAC under a per-process key, so no other page can forge it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

TOKEN_HEADER = "x-csrf-token"
#: A page older than this must be reloaded before it can change anything.
TOKEN_MAX_AGE_S = 12 * 3600
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})


@dataclass(frozen=True)
class Refusal:
    """Why a request was refused: an ErrorInfo-style reason and a message without content (answered as 403)."""

    reason: str
    message: str


def host_name(host_header: str) -> str:
    """The host part of a Host header, without the port (IPv6 literals keep their brackets)."""
    host = host_header.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        return host[: end + 1] if end > 0 else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


@dataclass
class ViewGuard:
    """Mints per-page tokens and checks requests; one per process (the key never leaves memory)."""

    key: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    clock_s: Callable[[], float] = time.time

    def mint(self) -> str:
        """A fresh token for one served page: `<issued_s>.<nonce>.<mac>`."""
        issued_s = int(self.clock_s())
        nonce = secrets.token_urlsafe(16)
        return f"{issued_s}.{nonce}.{self._mac(issued_s, nonce)}"

    def _mac(self, issued_s: int, nonce: str) -> str:
        return hmac.new(self.key, f"{issued_s}.{nonce}".encode(), hashlib.sha256).hexdigest()

    def token_refusal(self, token: str | None) -> Refusal | None:
        """None when `token` is one this guard minted and still fresh, else why not."""
        if not token:
            return Refusal("CSRF_TOKEN_MISSING", f"state-changing requests need the {TOKEN_HEADER} header")
        parts = token.split(".")
        if len(parts) != 3 or not parts[0].isdigit():
            return Refusal("CSRF_TOKEN_INVALID", "the CSRF token is malformed")
        issued_s, nonce, mac = int(parts[0]), parts[1], parts[2]
        if not hmac.compare_digest(mac, self._mac(issued_s, nonce)):
            return Refusal("CSRF_TOKEN_INVALID", "the CSRF token was not issued by this gateway")
        age_s = self.clock_s() - issued_s
        if age_s > TOKEN_MAX_AGE_S or age_s < -60:
            return Refusal("CSRF_TOKEN_EXPIRED", "the page is too old: reload it")
        return None


def host_refusal(host_header: str | None, allowed: Iterable[str]) -> Refusal | None:
    """None when the Host header names an allowed host (loopback by default), else why not."""
    name = host_name(host_header or "")
    if name in LOOPBACK_HOSTS or name in {h.lower() for h in allowed}:
        return None
    return Refusal("HOST_NOT_ALLOWED", "the Memory view answers only on its own host names")


def origin_refusal(
    method: str, scheme: str, host_header: str | None, origin: str | None, fetch_site: str | None
) -> Refusal | None:
    """None for a same-origin API request, else why it looks cross-site.

    Reads (GET, HEAD) are refused only when the browser says another site asked (Sec-Fetch-Site), which keeps
    memory out of reach of a page embedding the API as a script or image. Changes must be same-origin whenever the
    browser sends Sec-Fetch-Site or Origin, as browsers do on every fetch that changes state; a client that sends
    neither (curl, a script) is not a browser page, and the CSRF token still has to be right.
    """
    site = (fetch_site or "").lower()
    if method in ("GET", "HEAD", "OPTIONS"):
        if site in ("cross-site", "same-site"):
            return Refusal("CROSS_SITE_REQUEST", "another site asked for the Memory view's data")
        return None
    if fetch_site is not None and site != "same-origin":
        return Refusal("CROSS_SITE_REQUEST", "the request did not come from the Memory view's own origin")
    if origin is not None:
        own = f"{scheme}://{(host_header or '').strip().lower()}"
        if origin.strip().lower() != own:
            return Refusal("CROSS_SITE_REQUEST", "the request's Origin is not the Memory view's own")
    return None
