"""ListItems' domain side: page tokens bound to their query, and redacted rows (the SQL is memoryd.storage.listing).

A page token is the last row's sort values plus the query it belongs to (agent, kind, status filter), as
URL-safe base64 JSON; a token from another query, or not one of ours, is INVALID_PAGE_TOKEN. It carries sort
values only (salience, use count, time, id), never content.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from dataclasses import dataclass

from memoryd.console.core import METADATA_CHARS
from memoryd.console.redact import PREVIEW_CHARS_EPISODE, PREVIEW_CHARS_PINNED, redact
from memoryd.domain import KIND_EPISODE, KIND_PINNED
from memoryd.storage.listing import ListingStore
from servicekit.errors import FieldViolation, InvalidArgumentError

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
_MAX_POSITION = float(2**62)
_PREVIEW_CHARS = {KIND_PINNED: PREVIEW_CHARS_PINNED, KIND_EPISODE: PREVIEW_CHARS_EPISODE}


@dataclass(frozen=True)
class ListedItemView:
    """One listed row, redacted."""

    kind: str
    id: int
    preview: str
    salience: float
    use_count: int
    status: str
    created_at_ms: int
    occur_at_ms: int
    redactions: tuple[str, ...]
    topics: tuple[str, ...]


@dataclass(frozen=True)
class ItemPage:
    """One page of a listing."""

    items: tuple[ListedItemView, ...]
    next_page_token: str
    total: int


def _bad_token() -> InvalidArgumentError:
    reason = "INVALID_PAGE_TOKEN"
    description = "is not a token of this listing (agent_id, kind and include_disabled must stay the same)"
    return InvalidArgumentError(
        reason,
        f"invalid request: page_token: {description}",
        field_violations=[FieldViolation("page_token", description, reason)],
    )


def encode_token(query: tuple[str, str, bool], position: tuple[float, ...]) -> str:
    """The token of the page that starts after `position` in the listing `query` (agent, kind, disabled)."""
    text = json.dumps({"q": list(query), "p": list(position)}, separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode_token(token: str, query: tuple[str, str, bool]) -> tuple[float, ...]:
    """The position a token carries; INVALID_PAGE_TOKEN when it is malformed or from another listing."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = json.loads(raw)
        position = tuple(float(x) for x in data["p"])
        same = data["q"] == list(query)
    except (binascii.Error, ValueError, TypeError, KeyError, UnicodeDecodeError):
        raise _bad_token() from None
    if not same or len(position) != (3 if query[1] == KIND_PINNED else 2):
        raise _bad_token()
    # A crafted token could carry inf, nan or a number past SQLite's integers; ours never do.
    if not all(math.isfinite(x) and abs(x) < _MAX_POSITION for x in position):
        raise _bad_token()
    return position


class ItemListing:
    """Pages of one agent's pinned facts or episodes, redacted like Search's previews."""

    def __init__(self, store: ListingStore) -> None:
        self._store = store

    def page(
        self, agent_id: str, kind: str, page_size: int, page_token: str, include_disabled: bool
    ) -> ItemPage:
        """One page (page_size 0 means DEFAULT_PAGE_SIZE) starting at page_token (empty: the first page)."""
        query = (agent_id, kind, include_disabled)
        after = decode_token(page_token, query) if page_token else None
        found = self._store.page(
            agent_id, kind, page_size or DEFAULT_PAGE_SIZE, include_disabled=include_disabled, after=after
        )
        items = []
        for row in found.rows:
            shown = redact(row.text, _PREVIEW_CHARS[kind])
            topics = redact(row.topics_csv, METADATA_CHARS)  # as Inspect shows them
            items.append(
                ListedItemView(
                    kind=kind,
                    id=row.id,
                    preview=shown.text,
                    salience=row.salience,
                    use_count=row.use_count,
                    status=row.status,
                    created_at_ms=row.created_at_ms,
                    occur_at_ms=row.occur_at_ms,
                    redactions=tuple(sorted(set(shown.counts) | set(topics.counts))),
                    topics=tuple(t.strip() for t in topics.text.split(",") if t.strip()),
                )
            )
        token = encode_token(query, found.next_position) if found.next_position is not None else ""
        return ItemPage(tuple(items), token, found.total)


__all__ = ["DEFAULT_PAGE_SIZE", "MAX_PAGE_SIZE", "ItemListing", "ItemPage", "ListedItemView"]
