"""Translate the row stores' SQL (SQLite's `?` / `?NNN` placeholders) into PostgreSQL's `$n`, once per statement.

The statements are written once for both backends; this is the only place that knows PostgreSQL numbers its
parameters. Outside string literals, quoted identifiers and comments:
  - `?NNN` becomes `$NNN`, and a bare `?` the next number after the largest so far (SQLite's own rule);
  - `IS ?` / `IS NOT ?` (SQLite's null-safe equality) become `IS NOT DISTINCT FROM $n` / `IS DISTINCT FROM $n`;
  - an empty list, `IN ()` / `NOT IN ()` (SQLite accepts it, PostgreSQL does not), becomes `= ANY('{}')` /
    `<> ALL('{}')`, which are false and true for every row as SQLite's are.
Python booleans become 0/1 (SQLite stores them so; the schema's flags are integers on both backends).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

_EMPTY_IN = re.compile(r"(?i)\b(NOT\s+)?IN\s*\(\s*\)")
_IS_PARAM = re.compile(r"(?i)\bIS(\s+NOT)?\s+$")


def _rewrite_code(code: str) -> str:
    """Empty IN lists, in a stretch of SQL outside literals."""
    return _EMPTY_IN.sub(lambda m: "<> ALL('{}')" if m.group(1) else "= ANY('{}')", code)


@functools.lru_cache(maxsize=4096)
def to_postgres(sql: str) -> str:
    """The statement with `$n` placeholders (cached: the stores' statements are few and reused)."""
    out: list[str] = []
    code: list[str] = []  # the current stretch outside literals, rewritten when it ends
    highest = 0
    i, n = 0, len(sql)

    def flush() -> None:
        if code:
            out.append(_rewrite_code("".join(code)))
            code.clear()

    while i < n:
        ch = sql[i]
        if ch in ("'", '"'):
            end = i + 1
            while end < n:
                if sql[end] == ch:
                    if end + 1 < n and sql[end + 1] == ch:  # doubled quote inside the literal
                        end += 2
                        continue
                    break
                end += 1
            flush()
            out.append(sql[i : end + 1])
            i = end + 1
        elif ch == "-" and sql.startswith("--", i):
            end = sql.find("\n", i)
            end = n if end < 0 else end
            flush()
            out.append(sql[i:end])
            i = end
        elif ch == "?":
            j = i + 1
            while j < n and sql[j].isdigit():
                j += 1
            number = int(sql[i + 1 : j]) if j > i + 1 else highest + 1
            highest = max(highest, number)
            so_far = "".join(code)
            null_safe = _IS_PARAM.search(so_far)
            if null_safe:
                negated = bool(null_safe.group(1))
                so_far = so_far[: null_safe.start()] + (
                    "IS DISTINCT FROM " if negated else "IS NOT DISTINCT FROM "
                )
                code[:] = [so_far]
            code.append(f"${number}")
            i = j
        else:
            code.append(ch)
            i += 1
    flush()
    return "".join(out)


def pg_params(params: Sequence[Any]) -> tuple[Any, ...]:
    """The parameters as PostgreSQL should receive them (booleans as 0/1, like SQLite)."""
    return tuple(int(p) if isinstance(p, bool) else p for p in params)


__all__ = ["pg_params", "to_postgres"]
