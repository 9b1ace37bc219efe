"""Load and validate the frozen gate_v11 data: a ninth held-out, test-only set of memory profiles and gate queries.

The record types and readers are gate_v2's (same schema, see bench/gate_v2/README.md) and the validator is
gate_v3's; this module points them at this directory with gate_v11's own minimums (README.md next to this file;
the same as gate_v4-v10): 16 profiles, 420 queries, at least 3 entity traps per profile, and no profile
id of gate_v2, gate_v3, gate_v4, gate_v5, gate_v6, gate_v7, gate_v8, gate_v9 or gate_v10.
`python -m bench.gate_v11.loader` validates and prints counts.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from bench.gate_v2.loader import DataError, GateQuery, Profile
from bench.gate_v3 import loader as v3

DATA_DIR: Final = Path(__file__).resolve().parent
V11_RULES: Final = v3.HeldOutRules(
    name="gate_v11",
    profiles_per_lang={"en": 6, "fr": 3, "es": 3, "de": 2, "pt": 2},
    min_queries=420,
    earlier_dirs=(
        DATA_DIR.parent / "gate_v2",
        DATA_DIR.parent / "gate_v3",
        DATA_DIR.parent / "gate_v4",
        DATA_DIR.parent / "gate_v5",
        DATA_DIR.parent / "gate_v6",
        DATA_DIR.parent / "gate_v7",
        DATA_DIR.parent / "gate_v8",
        DATA_DIR.parent / "gate_v9",
        DATA_DIR.parent / "gate_v10",
    ),
    min_entity_traps_per_profile=3,
)


def load_profiles(data_dir: Path = DATA_DIR) -> dict[str, Profile]:
    """Read <data_dir>/memory.jsonl into profiles keyed by profile id, in file order."""
    return v3.load_profiles(data_dir)


def load_queries(data_dir: Path = DATA_DIR, split: str | None = None) -> list[GateQuery]:
    """Read <data_dir>/queries.jsonl, optionally keeping one split (every gate_v11 query is "test")."""
    return v3.load_queries(data_dir, split)


def validate(profiles: Mapping[str, Profile], queries: Sequence[GateQuery]) -> None:
    """Raise DataError listing every broken invariant; return None when the data is as README.md says."""
    v3.validate(profiles, queries, V11_RULES)


counts = v3.counts

__all__ = ["DATA_DIR", "V11_RULES", "DataError", "counts", "load_profiles", "load_queries", "validate"]


if __name__ == "__main__":
    sys.exit(v3.main(DATA_DIR, V11_RULES))
