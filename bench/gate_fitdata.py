"""The evidence gate's fitting examples, from the evidence bench/gate_collect.py recorded inside the read path.

Features are recomputed here with memoryd's own gate_features.compute (the collector checked that the recorded
evidence gives exactly the served features), so a change to the features needs no new run of the stack. Two kinds
of example are derived besides the seeded full profiles:

- agents seeded with sections missing (the collector's variants), relabelled by `relabel`: the expected section
  is kept while it exists; when it is gone the label falls to the first acceptable section that still holds an
  answer item, else to none (memory cannot answer, so nothing should be injected);
- the same evidence without the query vector (`without_vectors`): what the read path measures when the query
  embedding misses its deadline (every cosine None, no identity cosine; the keyword evidence is unchanged).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bench.gate_fit import Example
from memoryd.retrieval.evidence import SectionEvidence
from memoryd.retrieval.gate_features import QueryEvidence, compute
from memoryd.retrieval.items import IdentityFact, IdentitySnapshot, Section

#: Item id letter → section ("en1.p3" is a pinned fact).
ITEM_SECTIONS = {"i": "identity", "p": "pinned", "e": "episodes", "t": "transcript"}


@dataclass(frozen=True)
class Recorded:
    """One collected row: the query's labels and the evidence the read path measured for one agent variant."""

    set: str
    variant: str
    removed: tuple[str, ...]
    id: str
    profile: str
    lang: str
    query: str
    expected: str
    acceptable: tuple[str, ...]
    answer_ids: tuple[str, ...]
    tags: tuple[str, ...]
    #: None for a query too short for the gate (it is none without any evidence).
    evidence: QueryEvidence | None


def _section(raw: Mapping[str, Any]) -> SectionEvidence:
    fields = dict(raw)
    fields["terms"] = tuple(fields.get("terms", ()))
    # Recorded at gate_collect's run for gate-v4, which also measured life-domain evidence (not kept: docs/gate.md).
    for name in ("domain_query", "domain_rows"):
        fields.pop(name, None)
    fields["term_df"] = {str(k): int(v) for k, v in dict(fields.get("term_df", {})).items()}
    return SectionEvidence(**fields)


def evidence_from_json(raw: Mapping[str, Any]) -> QueryEvidence:
    """The QueryEvidence gate_collect.evidence_json wrote."""
    sections: dict[Section, SectionEvidence | None] = {
        Section(name): (None if value is None else _section(value)) for name, value in raw["sections"].items()
    }
    facts = tuple(IdentityFact(id=str(n), text=text) for n, text in enumerate(raw.get("facts", [])))
    identity = IdentitySnapshot(narrative=str(raw.get("narrative", "")), facts=facts)
    cosine = raw.get("identity_cosine")
    return QueryEvidence(
        sections, identity, frozenset(raw.get("entities", [])), None if cosine is None else float(cosine)
    )


def read(path: Path) -> list[Recorded]:
    """Every row the collector wrote."""
    out = []
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as source:
        lines = source.read().splitlines()
    for line in lines:
        if not line.strip():
            continue
        raw = json.loads(line)
        out.append(
            Recorded(
                raw["set"], raw["variant"], tuple(raw["removed"]), raw["id"], raw["profile"], raw["lang"],
                raw["query"], raw["expected"], tuple(raw["acceptable"]), tuple(raw["answer_ids"]),
                tuple(raw["tags"]), None if raw["evidence"] is None else evidence_from_json(raw["evidence"]),
            )
        )  # fmt: skip
    return out


def without_vectors(evidence: QueryEvidence) -> QueryEvidence:
    """The evidence as measured when the query embedding timed out: keyword evidence only."""
    sections = {
        s: None if e is None else replace(e, cosine_top=None, cosine_mean3=None, cosine_gap=0.0)
        for s, e in evidence.sections.items()
    }
    return replace(evidence, sections=sections, identity_cosine=None)


def without_identity(evidence: QueryEvidence) -> QueryEvidence:
    """The evidence of the same agent without identity facts or narrative (a new agent: identity is derived
    later). Exact: the features read the identity only through these fields."""
    return replace(evidence, identity=IdentitySnapshot(), identity_cosine=None)


def only_identity(evidence: QueryEvidence) -> QueryEvidence:
    """The evidence of an agent holding identity facts only (a pinned-only agent's, its pinned facts gone): every
    section empty as the read path measures an empty section (rows 0, the query's terms, nothing else), no
    entities (they come from episodes and pinned tags)."""
    sections = {
        s: None if e is None else SectionEvidence(terms=e.terms) for s, e in evidence.sections.items()
    }
    return replace(evidence, sections=sections, entities=frozenset())


#: Recorded variants that also get a copy without identity (the seeded variants remove identity only together
#: with pinned facts and episodes, which would teach the model that an agent without identity has no answers).
IDENTITYLESS_FROM = ("full", "pinned_only")


def relabel(
    expected: str, acceptable: Sequence[str], answer_ids: Sequence[str], removed: Iterable[str]
) -> tuple[str, tuple[str, ...]]:
    """(expected, acceptable) for an agent whose `removed` sections are empty.

    A section is still a right answer only if it exists and holds one of the query's answer items (the labelled
    acceptable sections hold one by construction). When the expected section is gone, the first acceptable
    section in answer order takes its place; with none left the query needs memory this agent does not have.
    """
    gone = set(removed)
    if expected == "none":
        return "none", ()
    holding = [ITEM_SECTIONS[a.rsplit(".", 1)[-1][0]] for a in answer_ids]
    alive = [s for s in dict.fromkeys(holding) if s not in gone]
    kept = tuple(s for s in acceptable if s not in gone and s in alive)
    if expected not in gone:
        return expected, kept
    if not kept:
        return "none", ()
    return kept[0], kept[1:]


def examples(
    rows: Sequence[Recorded],
    *,
    vectorless: bool = False,
    identityless: bool = False,
    identity_only: bool = False,
) -> list[Example]:
    """Fitting examples (features recomputed now); `vectorless` gives the timed-out-vector copies instead,
    `identityless` the copies without identity of the IDENTITYLESS_FROM variants, `identity_only` the copies of the
    pinned-only agents without their pinned facts (an agent with identity facts alone).

    Example.split carries "<set>/<variant>[/noid|/idonly][/novec]" so folds and reports can tell them apart; a
    query the gate never scores (too short) has no features and is left out (it is none by rule, and the sets
    label it none).
    """
    out = []
    for r in rows:
        if r.evidence is None or (identityless and r.variant not in IDENTITYLESS_FROM):
            continue
        if identity_only and r.variant != "pinned_only":
            continue
        evidence = r.evidence
        removed = r.removed
        if identityless:
            evidence, removed = without_identity(evidence), (*removed, "identity")
        if identity_only:
            evidence, removed = only_identity(evidence), (*removed, "pinned")
        evidence = without_vectors(evidence) if vectorless else evidence
        expected, acceptable = relabel(r.expected, r.acceptable, r.answer_ids, removed)
        tag = (
            f"{r.set}/{r.variant}" + ("/noid" if identityless else "") + ("/idonly" if identity_only else "")
        )
        tag += "/novec" if vectorless else ""
        out.append(Example(r.id, tag, r.lang, expected, acceptable, r.tags, compute(r.query, evidence)))
    return out


__all__ = [
    "IDENTITYLESS_FROM",
    "ITEM_SECTIONS",
    "Recorded",
    "evidence_from_json",
    "examples",
    "only_identity",
    "read",
    "relabel",
    "without_identity",
    "without_vectors",
]
