"""Relevance-gate quality (issues 6 and 17): the evidence gate on the frozen, held-out gate set, end to end.

Headline (issue 17): every profile of the held-out set (HELD_OUT) is seeded into a real memoryd (real MiniLM embeddings through a real
inferd, bench/gate_harness.py) and every query goes through AssembleContext over gRPC, with the shipped gate model:
lenient and strict section accuracy, false injection (all no-memory queries, hard negatives, entity traps,
non-English), missed injection, per-section recall and precision, the confusion matrix, and whether the block holds an
answer item. The held-out set is read only here.

Regression check (issue 6, not the headline): the old bench/gate_set.jsonl through the trigger phrases alone (the
gate's fallback when no model is loaded, and one feature of the evidence gate) and the reference app's rules; the
llm gate with the real core model when OSAURUS_BENCH_GATE_LLM_QUERIES is set (default 0: skipped; "all" runs every
query; a 135M model on CPU takes seconds per call).

gate_v14 is written blind in session 17 before any gate ran on it; it is never fitted, tuned or chosen on. gate_v13
(written blind in session 16, frozen at baa0726, run once with gate-v10 and gate-v11) is fitting data since session 17.
gate_v12 (written blind in session 15, frozen at b1cbc94, run once with gate-v10) is fitting data since session 16. gate_v11
(written blind in session 14, frozen at 2381b3f, run once with gate-v9) is fitting data since session 15. gate_v10
(written blind in session 13, frozen at 239b0a6, run once with gate-v8) is fitting data since gate-v9. gate_v9
(written blind in session 12, frozen at 3549e28, run once with gate-v7) is fitting data since gate-v8. gate_v8
(written blind in session 11, frozen at 33e6452, run once with gate-v5) is fitting data since gate-v7. gate_v7
(written blind in session 10, frozen at 5646f42, run once with gate-v5) is fitting data since gate-v6. gate_v6
(frozen at 738f757, session 9's held-out set, run twice) is fitting data since gate-v5. gate_v5 (frozen at ecd9a3b)
and gate_v4 (frozen at d6dae9f) were the held-out sets of sessions 8 and 7, each reported before anything was fitted
on them; since session 9 they are fitting data like gate_v3 and gate_v2, so `--set v10|…|v2` are fit checks, not
held-out figures; `--set all` runs every set and the regression check.

Run alone: `python -m bench.bench_gate [--set v2|…|v14|all]` (default v14, with the regression
check, as `make bench`).
"""

from __future__ import annotations

import json
import os
import random
import re
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.report import BenchResult
from memoryd.retrieval.gate import decide_heuristic, prepare_entities
from memoryd.retrieval.items import Section

ISSUE = 6
GATE_SET = Path(__file__).resolve().parent / "gate_set.jsonl"
#: The held-out set of this session: the headline, and the default of `--set`. gate_v14 was written blind in
#: session 17 and frozen (bench/gate_v14/README.md) before any gate ran on it; gate_v2..v13 are fitting data.
HELD_OUT = "v14"
#: Every labelled set with gate_v2's schema, newest first: its name and directory (None: gate_v2's own).
GATE_SETS: dict[str, Path | None] = {
    **{
        f"v{n}": Path(__file__).resolve().parent / f"gate_v{n}"
        for n in range(14, 2, -1)
        if (Path(__file__).resolve().parent / f"gate_v{n}").is_dir()
    },
    "v2": None,
}
#: What the benchmark's user has talked about before (entities of their episodes and pinned tags).
#: "Nova" and "Ben" are substring traps (supernova, benchmark); "over" is the reference app's own example.
KNOWN_ENTITIES = (
    "Mochi", "Project Falcon", "Falcon", "Dr. Patel", "Acme Corp", "Lena", "Helix", "Sunny Side Cafe", "Marco",
    "Nova", "Ben", "over",
)  # fmt: skip
SECTIONS = [s.value for s in Section]
LLM_DEADLINE_S = 2.5


@dataclass(frozen=True)
class GateCase:
    """One labelled query."""

    id: str
    split: str
    query: str
    expected: str
    lang: str
    tags: tuple[str, ...]


def load_set(path: Path = GATE_SET) -> list[GateCase]:
    """Every labelled query in file order."""
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            raw = json.loads(line)
            cases.append(
                GateCase(
                    raw["id"], raw["split"], raw["query"], raw["expected"], raw["lang"], tuple(raw["tags"])
                )
            )
    return cases


# ---------------------------------------------------------------------------------------- reference baseline
_REF_IDENTITY = (
    "what's my name", "what is my name", "who am i", "tell me about myself", "what do you know about me",
    "what do you remember about me", "what do i do", "where do i work", "where am i from", "what's my job",
    "how old am i", "what's my role",
)  # fmt: skip
_REF_TRANSCRIPT = re.compile(
    r"^exact\s+words\b|\b(?:what\s+(?:were\s+)?my\s+exact\s+words|what\s+exact\s+words\s+did\s+i\s+(?:say|write|type)"
    r"|what\s+(?:exactly\s+)?did\s+i\s+(?:say|write|type)(?:\s+(?:exactly|verbatim|word\s+for\s+word))?"
    r"|what\s+i\s+(?:said|wrote|typed)|(?:quote|repeat)\s+(?:back\s+)?(?:what\s+i\s+(?:said|wrote|typed)"
    r"|my\s+(?:exact\s+)?words))\b",
    re.IGNORECASE,
)
_REF_TEMPORAL = re.compile(
    r"\b(yesterday|last (?:week|month|year|time|session)|earlier|previously|before|ago|when did|on (?:monday|"
    r"tuesday|wednesday|thursday|friday|saturday|sunday)|in (?:january|february|march|april|may|june|july|august|"
    r"september|october|november|december)|\d{4}-\d{2}-\d{2})\b",
    re.IGNORECASE,
)
_REF_PRIOR = re.compile(
    r"\b(we discussed|we talked|you said|you told me|you mentioned|remember (?:when|that|the)|recall (?:when|that|"
    r"the)|as i (?:said|mentioned)|like i said|that thing (?:we|i))\b",
    re.IGNORECASE,
)
_REF_PINNED = re.compile(
    r"\b(remember|recall|forget|did i say|did i tell|do you know about my)\b", re.IGNORECASE
)
_REF_MY = re.compile(r"\b(my|our) [a-z]", re.IGNORECASE)


def reference_gate(query: str, entities: Sequence[str]) -> str:
    """The reference app's heuristic (docs/references.md with its later upstream changes)."""
    q = query.strip().lower()
    if len(q) < 3:
        return "none"
    if any(phrase in q for phrase in _REF_IDENTITY):
        return "identity"
    if _REF_TRANSCRIPT.search(q):
        return "transcript"
    if _REF_TEMPORAL.search(q) or _REF_PRIOR.search(q):
        return "episodes"
    if any(len(e) >= 4 and e.lower() in q for e in entities):
        return "pinned"
    if _REF_PINNED.search(q) or _REF_MY.search(q):
        return "pinned"
    return "none"


# -------------------------------------------------------------------------------------------------- scoring
@dataclass(frozen=True)
class Scores:
    """Quality of one mode on a list of cases."""

    n: int
    correct: int
    none_total: int
    false_injections: int
    hard_total: int
    hard_false: int
    recall: dict[str, tuple[int, int]]
    by_lang: dict[str, tuple[int, int]]
    confusion: dict[tuple[str, str], int]

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else 0.0

    @property
    def false_injection_rate(self) -> float:
        return self.false_injections / self.none_total if self.none_total else 0.0


def score(cases: Sequence[GateCase], predictions: Sequence[str]) -> Scores:
    """Accuracy, false injection on expected-none queries, recall per section, accuracy per language."""
    recall: dict[str, list[int]] = {s: [0, 0] for s in SECTIONS}
    langs: dict[str, list[int]] = {}
    confusion: Counter[tuple[str, str]] = Counter()
    correct = none_total = false_inj = hard_total = hard_false = 0
    for case, got in zip(cases, predictions, strict=True):
        hit = got == case.expected
        correct += hit
        recall[case.expected][1] += 1
        recall[case.expected][0] += hit
        lang = langs.setdefault(case.lang, [0, 0])
        lang[0] += hit
        lang[1] += 1
        confusion[(case.expected, got)] += 1
        if case.expected == "none":
            none_total += 1
            false_inj += got != "none"
            if "hard_negative" in case.tags:
                hard_total += 1
                hard_false += got != "none"
    return Scores(
        len(cases),
        correct,
        none_total,
        false_inj,
        hard_total,
        hard_false,
        {k: (v[0], v[1]) for k, v in recall.items() if v[1]},
        {k: (v[0], v[1]) for k, v in sorted(langs.items())},
        dict(confusion),
    )


def pct(part: int, whole: int) -> str:
    """'93.1% (270/290)'."""
    return f"{100 * part / whole:.1f}% ({part}/{whole})" if whole else "n/a"


def summary_rows(name: str, s: Scores) -> str:
    """One markdown table row per mode."""
    recalls = " | ".join(pct(*s.recall[sec]) if sec in s.recall else "—" for sec in SECTIONS)
    return (
        f"| {name} | {pct(s.correct, s.n)} | {pct(s.false_injections, s.none_total)} | "
        f"{pct(s.hard_false, s.hard_total)} | {recalls} |"
    )


def summary_table(rows: Sequence[tuple[str, Scores]]) -> str:
    """Mode comparison table."""
    head = "| mode | accuracy | false injection (no-memory) | false injection (hard negatives) | "
    head += " | ".join(f"recall {s}" for s in SECTIONS) + " |"
    sep = "|" + " --- |" * (4 + len(SECTIONS))
    return "\n".join([head, sep, *(summary_rows(name, s) for name, s in rows)])


def language_table(rows: Sequence[tuple[str, Scores]]) -> str:
    """Accuracy per language and mode."""
    langs = sorted({lang for _, s in rows for lang in s.by_lang})
    lines = ["| mode | " + " | ".join(langs) + " |", "|" + " --- |" * (len(langs) + 1)]
    for name, s in rows:
        lines.append(
            f"| {name} | "
            + " | ".join(pct(*s.by_lang[lang]) if lang in s.by_lang else "—" for lang in langs)
            + " |"
        )
    return "\n".join(lines)


def confusion_table(s: Scores) -> str:
    """Rows: expected; columns: predicted."""
    lines = ["| expected \\ got | " + " | ".join(SECTIONS) + " |", "|" + " --- |" * (len(SECTIONS) + 1)]
    for exp in SECTIONS:
        lines.append(
            f"| {exp} | " + " | ".join(str(s.confusion.get((exp, got), 0)) for got in SECTIONS) + " |"
        )
    return "\n".join(lines)


def misses(cases: Sequence[GateCase], predictions: Sequence[str]) -> list[str]:
    """Markdown bullets of the wrong answers."""
    return [
        f"- `{c.id}` ({c.lang}) expected **{c.expected}**, got **{p}**: {c.query}"
        for c, p in zip(cases, predictions, strict=True)
        if p != c.expected
    ]


# ---------------------------------------------------------------------------------------------------- llm run
@dataclass(frozen=True)
class LlmRun:
    """Raw model decisions (None = call failed) and each call's latency."""

    cases: list[GateCase]
    decisions: list[str | None]
    latencies_s: list[float]
    model: str


def stratified_sample(cases: Sequence[GateCase], n: int, seed: int = 6) -> list[GateCase]:
    """About n cases with the set's section proportions (deterministic)."""
    if n >= len(cases):
        return list(cases)
    rng = random.Random(seed)
    by_section: dict[str, list[GateCase]] = {}
    for case in cases:
        by_section.setdefault(case.expected, []).append(case)
    out: list[GateCase] = []
    for section_cases in by_section.values():
        k = max(1, round(n * len(section_cases) / len(cases)))
        out.extend(rng.sample(section_cases, min(k, len(section_cases))))
    return sorted(out, key=lambda c: c.id)


def run_llm(cases: Sequence[GateCase]) -> LlmRun | str:
    """Classify with the real core model via an in-process inferd; a reason string when that is impossible."""
    try:
        from inferd.app import close_all, start
        from inferd.client import InferenceClient
        from inferd.config import for_tests
        from memoryd.read.gate_llm import LlmGateClassifier
    except ImportError as error:
        return f"inferd could not be imported ({error})"
    home = Path(tempfile.mkdtemp(prefix="bench-gate-"))
    try:
        running, app = start(for_tests(home, fake=False))
    except Exception as error:
        return f"inferd did not start ({type(error).__name__}: {error})"
    client = InferenceClient(running.target, deadline_s=600.0)
    try:
        llm = next((m for m in client.models() if m.kind == "llm" and m.is_default), None)
        if llm is None:
            return "inferd has no default LLM configured"
        classifier = LlmGateClassifier(client, llm.name, max_failures=10**6)
        entities = prepare_entities(KNOWN_ENTITIES)
        try:  # the cold load (GGUF conversion) is not a gate latency
            classifier.classify("warm up", entities, timeout_s=600.0)
        except Exception as error:
            return f"core model {llm.name} did not answer ({type(error).__name__}: {error})"
        decisions: list[str | None] = []
        latencies: list[float] = []
        for case in cases:
            started = time.perf_counter()
            try:
                decisions.append(classifier.classify(case.query, entities, timeout_s=120.0).section.value)
            except Exception:
                decisions.append(None)
            latencies.append(time.perf_counter() - started)
        return LlmRun(list(cases), decisions, latencies, llm.name)
    finally:
        client.close()
        close_all(running, app)


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


# --------------------------------------------------------------------------------------------------------- run
def run(gate_set: str = HELD_OUT) -> list[BenchResult]:
    """The evidence gate on one labelled set (default the held-out gate_v9, the headline), then the regression check.

    Every other set is fitting data (a fit check, see the module docstring); "all" runs every set, newest first.
    """
    from bench.gate_v2_report import run_v2

    if gate_set not in (*GATE_SETS, "all"):
        raise ValueError(f"gate_set must be one of {', '.join(GATE_SETS)} or all, not {gate_set!r}")
    results: list[BenchResult] = []
    for name, data_dir in GATE_SETS.items():
        if gate_set in (name, "all"):
            results += run_v2() if data_dir is None else run_v2(data_dir=data_dir, set_name=f"gate_{name}")
    return [*results, *run_regression()]


def run_regression() -> list[BenchResult]:
    """The old set through the trigger phrases and the reference rules (issue 6's figures, a regression check)."""
    cases = load_set()
    entities = prepare_entities(KNOWN_ENTITIES)
    ours = [decide_heuristic(c.query, entities).section.value for c in cases]
    ref = [reference_gate(c.query, KNOWN_ENTITIES) for c in cases]
    all_ours, all_ref = score(cases, ours), score(cases, ref)
    holdout = [i for i, c in enumerate(cases) if c.split == "holdout"]
    hold_cases = [cases[i] for i in holdout]
    hold_ours = score(hold_cases, [ours[i] for i in holdout])
    hold_ref = score(hold_cases, [ref[i] for i in holdout])
    started = time.perf_counter()
    for _ in range(5):
        for c in cases:
            decide_heuristic(c.query, entities)
    per_query_us = (time.perf_counter() - started) / (5 * len(cases)) * 1e6

    counts = Counter(c.expected for c in cases)
    langs = Counter(c.lang for c in cases)
    hard = sum("hard_negative" in c.tags for c in cases)
    rows: list[tuple[str, Scores]] = [
        ("ours, heuristic, all", all_ours),
        ("reference app heuristic, all", all_ref),
        ("ours, heuristic, holdout", hold_ours),
        ("reference app heuristic, holdout", hold_ref),
    ]

    llm_setting = os.environ.get("OSAURUS_BENCH_GATE_LLM_QUERIES", "0").strip().lower()
    llm_n = len(cases) if llm_setting == "all" else int(llm_setting or "0")
    llm_results: list[BenchResult] = []
    llm_detail = ""
    if llm_n <= 0:
        llm_detail = "**llm mode: not measured** (OSAURUS_BENCH_GATE_LLM_QUERIES=0)."
        llm_results.append(BenchResult(ISSUE, "gate llm: accuracy", "not measured", "≥ 85%", ""))
    else:
        sample = stratified_sample(cases, llm_n)
        outcome = run_llm(sample)
        if isinstance(outcome, str):
            llm_detail = f"**llm mode: not measured** — {outcome}."
            llm_results.append(
                BenchResult(ISSUE, "gate llm: accuracy", f"not measured ({outcome})", "≥ 85%", "")
            )
        else:
            llm_detail, llm_results = _llm_report(outcome, entities)

    detail = "\n\n".join(
        [
            "### Regression check: trigger phrases on the old set (`bench/gate_set.jsonl`)",
            f"Labelled set `bench/gate_set.jsonl`: {len(cases)} queries — "
            + ", ".join(f"{n} {s}" for s, n in counts.most_common())
            + f"; {hard} hard negatives; languages "
            + ", ".join(f"{lang} {n}" for lang, n in sorted(langs.items()))
            + ". Split `dev` (200) was written first and the rules were tuned on it; split `holdout` (90) was"
            " written after the rules were frozen and not tuned on (its first run scored 87/90; one generic"
            " fix — commas broke multi-word patterns — was made after, giving the number below). Caveat: the"
            " same engineer wrote the rules and both splits, so even the holdout shares the rules' author's"
            " phrasing; treat these as optimistic, and the reference-rule baseline as the fair comparison."
            " Known entities"
            f" given to the gate: {', '.join(KNOWN_ENTITIES)}.",
            "False injection = share of no-memory queries for which the gate picked a section. The reference"
            " baseline re-implements the reference app's rules (docs/references.md, incl. its later"
            " upstream changes) on the same queries.",
            summary_table(rows),
            "Accuracy by language:\n\n" + language_table(rows),
            "Confusion matrix, ours (heuristic, all queries):\n\n" + confusion_table(all_ours),
            f"Heuristic gate cost: {per_query_us:.0f} µs per query (pure Python, this machine).",
            "Our misses:\n\n" + "\n".join(misses(cases, ours) or ["- none"]),
            llm_detail,
        ]
    )
    results = [
        BenchResult(
            ISSUE,
            "regression, old set, trigger phrases alone: section accuracy (290 queries, 5 languages)",
            f"{100 * all_ours.accuracy:.1f}% (reference app rules: {100 * all_ref.accuracy:.1f}%)",
            "≥ 85%",
            detail,
        ),
        BenchResult(
            ISSUE,
            "regression, old set, trigger phrases alone: false injection on no-memory queries",
            f"{100 * all_ours.false_injection_rate:.1f}% (reference app rules: "
            f"{100 * all_ref.false_injection_rate:.1f}%)",
            "≤ 5%",
        ),
        BenchResult(
            ISSUE,
            "regression, old set, trigger phrases alone: holdout accuracy / false injection (90 queries)",
            f"{100 * hold_ours.accuracy:.1f}% / {100 * hold_ours.false_injection_rate:.1f}%",
            "≥ 85% / ≤ 5%",
        ),
        *llm_results,
    ]
    return results


def _llm_report(outcome: LlmRun, entities: frozenset[str]) -> tuple[str, list[BenchResult]]:
    """Detail text and headline results of an llm run."""
    cases = outcome.cases
    heuristic = [decide_heuristic(c.query, entities).section.value for c in cases]
    raw = [d if d is not None else h for d, h in zip(outcome.decisions, heuristic, strict=True)]
    # With the default 2.5 s deadline a slower answer is a timeout, and the gate falls back to the heuristic.
    effective = [
        d if d is not None and lat <= LLM_DEADLINE_S else h
        for d, lat, h in zip(outcome.decisions, outcome.latencies_s, heuristic, strict=True)
    ]
    raw_s, eff_s, heur_s = score(cases, raw), score(cases, effective), score(cases, heuristic)
    failed = sum(d is None for d in outcome.decisions)
    in_time = sum(
        d is not None and lat <= LLM_DEADLINE_S
        for d, lat in zip(outcome.decisions, outcome.latencies_s, strict=True)
    )
    p50, p95 = _percentile(outcome.latencies_s, 0.5), _percentile(outcome.latencies_s, 0.95)
    table = summary_table(
        [
            (f"llm {outcome.model}, no deadline", raw_s),
            (f"llm {outcome.model}, {LLM_DEADLINE_S:g} s deadline (fallback)", eff_s),
            ("ours, heuristic, same sample", heur_s),
        ]
    )
    detail = "\n\n".join(
        [
            f"**llm mode** — core model `{outcome.model}` through an in-process inferd (MLX, CPU), few-shot prompt,"
            f" JSON schema {{section, reason}}; stratified sample of {len(cases)} queries. Call latency p50"
            f" {p50:.2f} s, p95 {p95:.2f} s; {failed} calls failed; {in_time}/{len(cases)} answered within"
            f" the {LLM_DEADLINE_S:g} s deadline (the others fall back to the heuristic, as the gate does).",
            table,
            "Raw model predictions: " + ", ".join(f"{k} {v}" for k, v in Counter(raw).most_common()) + ".",
        ]
    )
    return detail, [
        BenchResult(
            ISSUE,
            f"gate llm ({outcome.model}, {len(cases)}-query sample): accuracy / false injection, no deadline",
            f"{100 * raw_s.accuracy:.1f}% / {100 * raw_s.false_injection_rate:.1f}% (p50 {p50:.1f} s per call)",
            "≥ 85% / ≤ 5%",
        ),
        BenchResult(
            ISSUE,
            f"gate llm with the {LLM_DEADLINE_S:g} s deadline (timeouts fall back to the heuristic)",
            f"{100 * eff_s.accuracy:.1f}% / {100 * eff_s.false_injection_rate:.1f}%"
            f" ({in_time}/{len(cases)} model answers in time; the rest are heuristic fallbacks)",
            "≥ 85% / ≤ 5%",
        ),
    ]


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Relevance-gate quality (issues 6 and 17).")
    parser.add_argument("--set", dest="gate_set", choices=(*GATE_SETS, "all"), default=HELD_OUT)
    for result in run(parser.parse_args().gate_set):
        print(f"{result.metric}: {result.value} (target {result.target})")
        if result.detail:
            print(result.detail)
