"""Safe PostgreSQL identifiers for the search and vector DDL: schema names and per-agent partition names."""

from __future__ import annotations

import hashlib
import re

_SCHEMA = re.compile(r"[a-z_][a-z0-9_]{0,62}")


def quoted_schema(schema: str) -> str:
    """The schema as a quoted identifier; only lower-case names of letters, digits and underscores are accepted."""
    if not _SCHEMA.fullmatch(schema):
        raise ValueError("schema names are lower-case letters, digits and underscores")
    return f'"{schema}"'


def partition_name(agent_id: str) -> str:
    """The vectors partition of one agent: a hash of its id (any id, no quoting issue, 35 characters)."""
    return "vectors_" + hashlib.sha256(agent_id.encode("utf-8")).hexdigest()[:27]


def literal(text: str) -> str:
    """A SQL string literal (DDL takes no parameters): single quotes doubled; NUL refused."""
    if "\x00" in text:
        raise ValueError("NUL in a literal")
    return "'" + text.replace("'", "''") + "'"
