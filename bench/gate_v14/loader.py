"""Load and validate the frozen gate_v14 data: a twelfth held-out, test-only set of memory profiles and gate queries.

The record types and readers are gate_v2's (same schema, see bench/gate_v2/README.md) and the validator is
gate_v3's; this module points them at this directory with gate_v14's own minimums (README.md next to this file):
16 profiles, 440 queries, at least 4 entity traps per profile, no profile id of gate_v2 … gate_v13, and the
varied profile shapes this set was written to (3-6 identity facts, 6-12 pinned facts, 2-5 episodes, 6-14
transcript turns). `python -m bench.gate_v14.loader` validates and prints counts.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from bench.gate_v2.loader import DataError, GateQuery, Profile
from bench.gate_v3 import loader as v3

DATA_DIR: Final = Path(__file__).resolve().parent
V14_RULES: Final = v3.HeldOutRules(
    name="gate_v14",
    profiles_per_lang={"en": 6, "fr": 3, "es": 3, "de": 2, "pt": 2},
    min_queries=440,
    earlier_dirs=tuple(DATA_DIR.parent / f"gate_v{n}" for n in range(2, 14)),
    min_entity_traps_per_profile=4,
    identity_range=(3, 6),
    pinned_range=(6, 12),
    episodes_range=(2, 5),
    transcript_range=(6, 14),
)


def load_profiles(data_dir: Path = DATA_DIR) -> dict[str, Profile]:
    """Read <data_dir>/memory.jsonl into profiles keyed by profile id, in file order."""
    return v3.load_profiles(data_dir)


def load_queries(data_dir: Path = DATA_DIR, split: str | None = None) -> list[GateQuery]:
    """Read <data_dir>/queries.jsonl, optionally keeping one split (every gate_v14 query is "test")."""
    return v3.load_queries(data_dir, split)


def validate(profiles: Mapping[str, Profile], queries: Sequence[GateQuery]) -> None:
    """Raise DataError listing every broken invariant; return None when the data is as README.md says."""
    v3.validate(profiles, queries, V14_RULES)


counts = v3.counts

__all__ = ["DATA_DIR", "V14_RULES", "DataError", "counts", "load_profiles", "load_queries", "validate"]


if __name__ == "__main__":
    sys.exit(v3.main(DATA_DIR, V14_RULES))
