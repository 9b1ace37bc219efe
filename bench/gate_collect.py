"""Collect the evidence gate's fitting data: what memoryd's read path measured for every query of the fitting sets.

For gate-v4 the fitting data is all of gate_v2, gate_v3, gate_v4 and gate_v5 (each reported once and then fitting
data; bench/train_gate.py splits them by profile into TRAIN and DEV); the held-out set is gate_v6, which is never
read here. Every profile is seeded into one real memoryd (real MiniLM
through a real inferd, bench/gate_harness.py), and every query goes through AssembleContext over gRPC. What is saved
is not only the features but the evidence they were computed from (each section's SectionEvidence, the identity,
the known entities, the identity cosine), recorded inside the read path, so features can be recomputed offline when
gate_features changes and variants can be derived exactly:

- **agents unlike the full profiles**: each profile is also seeded as agents with sections missing (no episodes;
  transcript only, as before the first distillation; identity and pinned facts only, as after an import), and every query of the profile is asked of them too; a query whose answer
  items are all gone is relabelled none, one whose expected section is gone falls to the acceptable section still
  holding an answer item (bench/gate_fit.relabel).
- **agents without identity** (identity is derived later than pinned facts): the full and pinned-only agents'
  evidence without the identity, derived offline by gate_fitdata.without_identity (exact: the features read
  the identity only there);
- **timed-out query vectors**: the evidence without its cosines (what the read path measures when the query
  embedding misses its deadline) is derived offline by gate_fit.without_vectors.

Run: `python -m bench.gate_collect` (a few minutes; writes bench/results/gate_fit_evidence.jsonl.gz).
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import random
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import memoryd.read.assemble as assemble_module
from bench.gate_harness import (
    assemble,
    index_everything,
    load_profiles,
    load_queries,
    running,
    seed_profile_grpc,
    warm_identity,
)
from bench.gate_v2.loader import Profile
from bench.gate_v2.loader import load_profiles as load_typed_profiles
from memoryd.client import MemoryClient
from memoryd.retrieval import gate_features
from memoryd.retrieval.gate_features import QueryEvidence

BENCH = Path(__file__).resolve().parent
#: The fitting sets: (directory, splits).
FIT_SETS: tuple[tuple[Path, tuple[str, ...]], ...] = (
    (BENCH / "gate_v2", ("train", "dev", "test")),
    (BENCH / "gate_v3", ("test",)),
    (BENCH / "gate_v4", ("test",)),
    (BENCH / "gate_v5", ("test",)),
    (BENCH / "gate_v6", ("test",)),
    (BENCH / "gate_v7", ("test",)),
    (BENCH / "gate_v8", ("test",)),
    (BENCH / "gate_v9", ("test",)),
    (BENCH / "gate_v10", ("test",)),
    (BENCH / "gate_v11", ("test",)),
    (BENCH / "gate_v12", ("test",)),
    (BENCH / "gate_v13", ("test",)),
)
OUT = BENCH / "results" / "gate_fit_evidence.jsonl.gz"
#: The second collection: every set's pinned-subset agents (gate-v5's session also held gate_v6's four variants
#: there; since gate-v6 every set's four variants are in OUT).
SPARSE_OUT = BENCH / "results" / "gate_fit_evidence_sparse.jsonl.gz"
#: gate-v7's addition: gate_v8 (run once with gate-v5 in session 11, fitting data since): its four usual variants
#: and its pinned-subset agents, collected on their own (`--v8`), so the gate_v2 .. gate_v7 files stay as recorded.
V8_OUT = BENCH / "results" / "gate_fit_evidence_v8.jsonl.gz"
#: gate-v8's addition: gate_v9 (run once with gate-v7 in session 12, fitting data since), collected on its own
#: (`--v9`) like gate_v8.
V9_OUT = BENCH / "results" / "gate_fit_evidence_v9.jsonl.gz"
#: gate-v9's addition: gate_v10 (run once with gate-v8 in session 13, fitting data since), collected on its own
#: (`--v10`) like gate_v9.
V10_OUT = BENCH / "results" / "gate_fit_evidence_v10.jsonl.gz"
#: gate-v10's addition: gate_v11 (run once with gate-v9 in session 14, fitting data since), collected on its own
#: (`--v11`) like gate_v10.
V11_OUT = BENCH / "results" / "gate_fit_evidence_v11.jsonl.gz"
#: gate-v11's addition: gate_v12 (run once with gate-v10 in session 15, fitting data since), collected on its own
#: (`--v12`) like gate_v11.
V12_OUT = BENCH / "results" / "gate_fit_evidence_v12.jsonl.gz"
#: gate-v12's addition: gate_v13 (run once with gate-v10 and gate-v11 in session 16, fitting data since), collected
#: on its own (`--v13`) like gate_v12.
V13_OUT = BENCH / "results" / "gate_fit_evidence_v13.jsonl.gz"
#: Sets collected on their own file (never in OUT / SPARSE_OUT).
OWN_FILE = {
    "gate_v8": V8_OUT,
    "gate_v9": V9_OUT,
    "gate_v10": V10_OUT,
    "gate_v11": V11_OUT,
    "gate_v12": V12_OUT,
    "gate_v13": V13_OUT,
}
#: Agent variants: name → sections left out of the seeded profile.
VARIANTS: dict[str, tuple[str, ...]] = {
    "full": (),
    "no_episodes": ("episodes",),
    "transcript_only": ("identity", "pinned", "episodes"),
    "pinned_only": ("episodes", "transcript"),
    # A new user's agent after one short session: a few pinned facts and nothing else (PINNED_FEW picks them).
    "pinned_few_a": ("identity", "episodes", "transcript"),
    "pinned_few_b": ("identity", "episodes", "transcript"),
}
#: Variants that keep only a random subset of the profile's active pinned facts: (smallest, largest) subset size.
PINNED_FEW: dict[str, tuple[int, int]] = {"pinned_few_a": (1, 2), "pinned_few_b": (2, 4)}


def pinned_subset(profile: Profile, variant: str) -> tuple[str, ...]:
    """The ids of the active pinned facts a pinned-subset variant keeps (seeded by profile and variant, so a
    re-collection keeps the same facts); () for any other variant (it keeps all or none)."""
    if variant not in PINNED_FEW:
        return ()
    active = [fact.id for fact in profile.pinned if not fact.superseded_by]
    low, high = PINNED_FEW[variant]
    rng = random.Random(f"{profile.profile}:{variant}")
    return tuple(sorted(rng.sample(active, min(len(active), rng.randint(low, high)))))


def variant_profile(profile: Profile, removed: Sequence[str]) -> Profile:
    """The profile without the removed sections."""
    changes: dict[str, Any] = dict.fromkeys(removed, ())
    return replace(profile, **changes)


def seeded_variant(profile: Profile, variant: str) -> Profile:
    """The profile as one agent variant holds it (sections removed; a pinned-subset variant's facts)."""
    out = variant_profile(profile, VARIANTS[variant])
    if variant in PINNED_FEW:
        kept = set(pinned_subset(profile, variant))
        out = replace(out, pinned=tuple(fact for fact in profile.pinned if fact.id in kept))
    return out


def evidence_json(evidence: QueryEvidence) -> dict[str, Any]:
    """QueryEvidence as JSON (gate_fit.evidence_from_json reads it back)."""
    return {
        "sections": {
            section.value: (None if e is None else {**dataclasses.asdict(e), "term_df": dict(e.term_df)})
            for section, e in evidence.sections.items()
        },
        "narrative": evidence.identity.narrative,
        "facts": [fact.text for fact in evidence.identity.facts],
        "entities": sorted(evidence.entities),
        "identity_cosine": evidence.identity_cosine,
    }


@contextmanager
def recording() -> Iterator[list[tuple[str, QueryEvidence]]]:
    """Record every (query, evidence) the read path computes features from (the bench's in-process memoryd)."""
    seen: list[tuple[str, QueryEvidence]] = []
    original: Callable[[str, QueryEvidence], dict[str, float]] = gate_features.compute

    def compute(query: str, evidence: QueryEvidence) -> dict[str, float]:
        seen.append((query, evidence))
        return original(query, evidence)

    setattr(assemble_module, "compute", compute)  # noqa: B010
    try:
        yield seen
    finally:
        setattr(assemble_module, "compute", original)  # noqa: B010


def collect(
    out: Path = OUT,
    variants: Sequence[str] = tuple(VARIANTS),
    sets: Sequence[str] | None = None,
    extra: Sequence[tuple[str, str]] = (),
) -> int:
    """Seed every fitting profile (and its variants), ask every query, write one JSON line per (query, variant).

    `sets` limits the fitting sets (directory names) the variants are collected for; `extra` adds (set, variant)
    pairs beyond them (gate-v5's collection: gate_v6's variants and every set's pinned-subset agents)."""
    wanted = {(d.name, v) for d, _ in FIT_SETS for v in variants if sets is None or d.name in sets}
    wanted |= set(extra)
    home = Path(tempfile.mkdtemp(prefix="bench-gate-fit-"))
    rows = 0
    out.parent.mkdir(parents=True, exist_ok=True)
    with running(home, query_embed_timeout_s=2.0) as stack, gzip.open(out, "wt", encoding="utf-8") as sink:
        now_ms = int(time.time() * 1000)
        agents: list[tuple[str, str, Path]] = []  # (profile, variant, data dir)
        with MemoryClient(stack.target, deadline_s=120.0) as client:
            for data_dir, _ in FIT_SETS:
                raw = load_profiles(data_dir / "memory.jsonl")
                typed = load_typed_profiles(data_dir / "memory.jsonl")
                for name in sorted(raw):
                    for variant in VARIANTS:
                        if (data_dir.name, variant) not in wanted:
                            continue
                        profile = seeded_variant(typed[name], variant)
                        seeded = replace(profile, profile=f"{name}~{variant}")
                        seed_profile_grpc(client, seeded, raw[name], now_ms)
                        agents.append((name, variant, data_dir))
        index_everything(stack)
        for name, variant, _ in agents:
            warm_identity(stack, f"{name}~{variant}")
        with recording() as seen:
            for variant in VARIANTS:
                for data_dir, splits in FIT_SETS:
                    if (data_dir.name, variant) not in wanted:
                        continue
                    typed = load_typed_profiles(data_dir / "memory.jsonl")
                    for query in load_queries(splits, data_dir / "queries.jsonl"):
                        seen.clear()
                        outcome = assemble(stack, {**query, "profile": f"{query['profile']}~{variant}"})
                        if len(seen) > 1:
                            raise RuntimeError(
                                f"{query['id']}: {len(seen)} feature computations for one query"
                            )
                        # A query too short for the gate (under 3 characters) is none without any evidence.
                        evidence = seen[0][1] if seen else None
                        if evidence is not None:
                            recomputed = gate_features.compute(seen[0][0], evidence)
                            served = outcome.features
                            if any(abs(recomputed[k] - v) > 1e-6 for k, v in served.items()):
                                raise RuntimeError(
                                    f"{query['id']}: recorded evidence does not give the served features"
                                )
                        row = {
                            "set": data_dir.name,
                            "variant": variant,
                            "removed": list(VARIANTS[variant]),
                            "kept_pinned": list(pinned_subset(typed[query["profile"]], variant)),
                            **{
                                k: query.get(k)
                                for k in ("id", "split", "profile", "lang", "query", "expected")
                            },
                            "acceptable": query.get("acceptable", []),
                            "answer_ids": query.get("answer_ids", []),
                            "tags": query.get("tags", []),
                            "served_section": outcome.section,
                            "served_reason": outcome.reason,
                            "evidence": None if evidence is None else evidence_json(evidence),
                        }
                        sink.write(json.dumps(row, ensure_ascii=False) + "\n")
                        rows += 1
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS)[:4], choices=list(VARIANTS))
    parser.add_argument("--sets", nargs="*", default=None, help="fitting sets (directory names) to collect")
    parser.add_argument(
        "--sparse",
        action="store_true",
        help=f"the second collection into {SPARSE_OUT.name}: every set's pinned-subset agents",
    )
    parser.add_argument(
        "--v8",
        action="store_true",
        help=f"gate_v8 alone (its four variants and its pinned-subset agents) into {V8_OUT.name}",
    )
    parser.add_argument(
        "--v9",
        action="store_true",
        help=f"gate_v9 alone (its four variants and its pinned-subset agents) into {V9_OUT.name}",
    )
    parser.add_argument(
        "--v10",
        action="store_true",
        help=f"gate_v10 alone (its four variants and its pinned-subset agents) into {V10_OUT.name}",
    )
    parser.add_argument(
        "--v11",
        action="store_true",
        help=f"gate_v11 alone (its four variants and its pinned-subset agents) into {V11_OUT.name}",
    )
    parser.add_argument(
        "--v12",
        action="store_true",
        help=f"gate_v12 alone (its four variants and its pinned-subset agents) into {V12_OUT.name}",
    )
    parser.add_argument(
        "--v13",
        action="store_true",
        help=f"gate_v13 alone (its four variants and its pinned-subset agents) into {V13_OUT.name}",
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    own = {
        "gate_v8": args.v8,
        "gate_v9": args.v9,
        "gate_v10": args.v10,
        "gate_v11": args.v11,
        "gate_v12": args.v12,
        "gate_v13": args.v13,
    }
    own_set = next((name for name, wanted in own.items() if wanted), None)
    out = SPARSE_OUT if args.sparse else OWN_FILE[own_set] if own_set else args.out
    if own_set:
        rows = collect(out, list(VARIANTS)[:4], [own_set], [(own_set, v) for v in PINNED_FEW])
    elif args.sparse:
        extra = [(d.name, v) for d, _ in FIT_SETS if d.name not in OWN_FILE for v in PINNED_FEW]
        rows = collect(out, list(VARIANTS)[:4], [], extra)
    else:
        rows = collect(out, args.variants, args.sets)
    print(f"wrote {rows} rows to {out} in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
