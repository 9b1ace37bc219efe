"""Assistant filler left out of the transcript section (memoryd/retrieval/filler.py): how many assistant turns the
rule drops and how many transcript-line tokens that saves, on the labelled sessions under bench/ (the five frozen
distillation sets, realistic user ↔ assistant chats in five languages, read only) and on LoCoMo as the end-to-end
bench ingests it (person ↔ person dialogue, each turn prefixed with its speaker).

Method: every turn of a session becomes the line the planner would place (`blocks.transcript_line`); the session's
turns are the hits `without_filler` sees (echoes are measured against the session's user turns). Tokens are the
read path's estimate (`EstimatingCounter`, chars/4 with its margin), summed over lines. A block holds the best
≤ 12 turns for a query, not a whole session, so this is the share of the transcript the rule removes, not a
per-query figure; LoCoMo's end-to-end bench (bench_locomo_e2e) reports the blocks themselves.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from bench.locomo_data import load, locomo_path
from bench.report import BenchResult
from memoryd.retrieval.blocks import transcript_line
from memoryd.retrieval.filler import without_filler
from memoryd.retrieval.items import ItemKind, ItemRef, MemoryHit
from memoryd.retrieval.tokens import EstimatingCounter

ISSUE = 17
BENCH_DIR = Path(__file__).resolve().parent
SESSION_SETS = ("distill_set", "distill_set_v3", "distill_set_v4", "distill_set_v5", "distill_set_v6")

Exchange = tuple[str, str]


def _hits(exchanges: Sequence[Exchange]) -> list[MemoryHit]:
    hits: list[MemoryHit] = []
    for user, assistant in exchanges:
        for role, text in (("user", user), ("assistant", assistant)):
            if text:
                hits.append(MemoryHit(ItemRef(ItemKind.TRANSCRIPT_TURN, str(len(hits))), text, role=role))
    return hits


class Tally:
    """Assistant turns and line tokens, before and after the rule."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self._counter = EstimatingCounter()

    def add(self, exchanges: Sequence[Exchange]) -> None:
        hits = _hits(exchanges)
        kept = without_filler(hits)
        dropped = [hit for hit in hits if hit not in kept]
        assert all(hit.role == "assistant" for hit in dropped)
        self.counts["assistant"] += sum(hit.role == "assistant" for hit in hits)
        self.counts["dropped"] += len(dropped)
        self.counts["tokens"] += self._tokens(hits)
        self.counts["saved"] += self._tokens(dropped)

    def _tokens(self, hits: Iterable[MemoryHit]) -> int:
        lines = [transcript_line(0, hit.role, hit.text) for hit in hits]
        return sum(self._counter.count(lines)) if lines else 0

    def row(self, name: str) -> str:
        c = self.counts
        share = c["dropped"] / max(c["assistant"], 1)
        saved = c["saved"] / max(c["tokens"], 1)
        return f"| {name} | {c['assistant']} | {c['dropped']} ({share:.1%}) | {c['tokens']} | {c['saved']} ({saved:.1%}) |"


def _session_sets() -> dict[str, Tally]:
    by_lang: dict[str, Tally] = {}
    for name in SESSION_SETS:
        for line in (BENCH_DIR / name / "sessions.jsonl").read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            session = json.loads(line)
            exchanges = [(t.get("user", ""), t.get("assistant", "")) for t in session["turns"]]
            by_lang.setdefault(session.get("lang", "en"), Tally()).add(exchanges)
    return by_lang


def _locomo() -> Tally | None:
    if not locomo_path().exists():
        return None
    tally = Tally()
    for conversation in load():
        sessions: dict[int, list[str]] = {}
        for turn in conversation.turns:
            sessions.setdefault(turn.session, []).append(turn.text)
        for texts in sessions.values():
            tally.add(
                [(texts[i], texts[i + 1] if i + 1 < len(texts) else "") for i in range(0, len(texts), 2)]
            )
    return tally


def run() -> list[BenchResult]:
    by_lang = _session_sets()
    total = Tally()
    for tally in by_lang.values():
        total.counts.update(tally.counts)
    rows = [total.row("**distill sets, all**"), *(by_lang[lang].row(lang) for lang in sorted(by_lang))]
    locomo = _locomo()
    if locomo is not None:
        rows.append(locomo.row("LoCoMo (speaker-prefixed, as bench_locomo_e2e ingests it)"))
    header = [
        "| sessions | assistant turns | dropped as filler | transcript-line tokens | tokens saved |",
        "| --- | --- | --- | --- | --- |",
    ]
    method = (
        "Every turn of a session as the line the planner would place; the session's turns as the hits "
        "`without_filler` sees (an echo counts against the user turn the reply answers). Tokens: the read path's "
        "estimate (chars/4 with its margin). A share of the whole transcript, not of one block (a block holds the "
        "best ≤ 12 turns for a query); bench_locomo_e2e reports blocks. distill_set_v7 (blind, held out) is not read."
    )
    detail = "\n".join([method, "", *header, *rows])
    share = total.counts["saved"] / max(total.counts["tokens"], 1)
    dropped = total.counts["dropped"] / max(total.counts["assistant"], 1)
    return [
        BenchResult(
            ISSUE,
            "Transcript-line tokens saved by leaving assistant filler out (five frozen distill sets, 5 languages)",
            f"{share:.1%}",
            "(reported)",
            detail,
        ),
        BenchResult(
            ISSUE, "Assistant turns dropped as filler (same sessions)", f"{dropped:.1%}", "(reported)"
        ),
    ]
