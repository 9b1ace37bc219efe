"""Cost of gate-v9's slot features (issue 17, item 4: features ≤ 0.5 ms per cache-miss assembly).

Over the recorded full-profile evidence of gate_v9 and gate_v10 (bench/gate_collect.py), in one process: the time
of `gate_slots.slot_features` per query (after one warm pass, as the service runs it: `answer_kinds.value_kinds` is
cached per text), the identity-place read with that cache emptied before every query (a cache miss), and the whole
feature computation for scale. Prints p50 / p95 in ms; writes nothing.

Run: `python -m bench.probe_gate_slots`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence

from bench.gate_collect import V9_OUT, V10_OUT
from bench.gate_fitdata import read
from memoryd.retrieval import gate_features, gate_slots
from memoryd.retrieval.answer_kinds import value_kinds
from memoryd.retrieval.gate import clip, fold

_WORD = re.compile(r"\w+")


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[int(q * (len(ordered) - 1))]


def main() -> int:
    rows = [r for path in (V9_OUT, V10_OUT) for r in read(path) if r.variant == "full"]
    cases = [(r.query, r.evidence) for r in rows if r.evidence is not None]
    for query, evidence in cases:
        gate_features.compute(query, evidence)
    slots: list[float] = []
    whole: list[float] = []
    cold: list[float] = []
    for query, evidence in cases:
        started = time.perf_counter()
        f = gate_features.compute(query, evidence)
        whole.append((time.perf_counter() - started) * 1000)
        folded = fold(clip(query))
        facts = [fact.text for fact in evidence.identity.facts]
        started = time.perf_counter()
        gate_slots.slot_features(
            folded, _WORD.findall(folded), f, names_own=f["own_name"] > 0, identity_facts=facts
        )
        slots.append((time.perf_counter() - started) * 1000)
        value_kinds.cache_clear()
        started = time.perf_counter()
        gate_slots.identity_place(facts)
        cold.append((time.perf_counter() - started) * 1000)
    for name, values in (
        ("slot features", slots),
        ("identity place, cache miss", cold),
        ("all features", whole),
    ):
        print(
            f"{name}: p50 {_quantile(values, 0.5):.3f} ms, p95 {_quantile(values, 0.95):.3f} ms ({len(values)} queries)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
