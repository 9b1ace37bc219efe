"""SQL math functions for SQLite builds compiled without them (SQLCipher's): registered per connection in Python.

The standard library's SQLite has exp(), ln(), pow() and friends (SQLITE_ENABLE_MATH_FUNCTIONS); the sqlcipher3
build does not, and decay's `salience * exp(...)` failed on every encrypted store with "no such function: exp".
SQL NULL in gives NULL out, and a domain error gives NULL, as SQLite's own versions do.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from typing import Any

_Number = float | int | None


def _unary(fn: Callable[[float], float]) -> Callable[[_Number], float | None]:
    def apply(x: _Number) -> float | None:
        if x is None:
            return None
        try:
            return fn(float(x))
        except OverflowError:
            return math.inf
        except ValueError:  # ln(-1), sqrt(-1): SQLite answers NULL
            return None

    return apply


def _power(x: _Number, y: _Number) -> float | None:
    if x is None or y is None:
        return None
    try:
        return math.pow(float(x), float(y))
    except OverflowError:
        return math.inf
    except ValueError:
        return None


#: name -> (arity, implementation): the subset of SQLite's math functions memoryd's SQL may use.
FUNCTIONS: dict[str, tuple[int, Callable[..., Any]]] = {
    "exp": (1, _unary(math.exp)),
    "ln": (1, _unary(math.log)),
    "log10": (1, _unary(math.log10)),
    "sqrt": (1, _unary(math.sqrt)),
    "pow": (2, _power),
    "power": (2, _power),
}

_missing: dict[str, bool] = {}
_guard = threading.Lock()


def lacks_math(module: Any) -> bool:
    """Whether `module`'s SQLite build (sqlite3 or sqlcipher3's dbapi2) has no exp(); probed once per module."""
    name = getattr(module, "__name__", repr(module))
    with _guard:
        if name not in _missing:
            conn = module.connect(":memory:")
            try:
                conn.execute("SELECT exp(0)").fetchone()
                _missing[name] = False
            except module.OperationalError:
                _missing[name] = True
            finally:
                conn.close()
        return _missing[name]


def add_math_functions(conn: Any) -> None:
    """Register FUNCTIONS on one DB-API connection (deterministic, so SQLite may use them in indexes)."""
    for name, (arity, fn) in FUNCTIONS.items():
        conn.create_function(name, arity, fn, deterministic=True)


__all__ = ["FUNCTIONS", "add_math_functions", "lacks_math"]
