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
    #: A pinned-subset variant's pinned facts (gate_collect.PINNED_FEW); () for the others (all or none kept).
    kept_pinned: tuple[str, ...] = ()


def _section(raw: Mapping[str, Any]) -> SectionEvidence:
    fields = dict(raw)
    fields["terms"] = tuple(fields.get("terms", ()))
    # Recorded at gate_collect's run for gate-v4, which also measured life-domain evidence (not kept: docs/gate.md).
    for name in ("domain_query", "domain_rows"):
        fields.pop(name, None)
    fields["term_df"] = {str(k): int(v) for k, v in dict(fields.get("term_df", {})).items()}
    for name in ("top_terms", "top_kinds"):
        fields[name] = tuple(tuple(str(v) for v in row) for row in fields.get(name, ()))
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
                tuple(raw.get("kept_pinned", ())),
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


def _section_of(item_id: str) -> str:
    """The section of a labelled item ("en1.p3" → pinned)."""
    return ITEM_SECTIONS[item_id.rsplit(".", 1)[-1][0]]


#: Recorded variants that also get a copy without identity (the seeded variants remove identity only together
#: with pinned facts and episodes, which would teach the model that an agent without identity has no answers).
IDENTITYLESS_FROM = ("full", "pinned_only")


def relabel(
    expected: str,
    acceptable: Sequence[str],
    answer_ids: Sequence[str],
    removed: Iterable[str],
    kept_pinned: Sequence[str] | None = None,
) -> tuple[str, tuple[str, ...]]:
    """(expected, acceptable) for an agent whose `removed` sections are empty (and, with `kept_pinned`, whose
    pinned section holds only those facts).

    A section is still a right answer only if it exists and holds one of the query's answer items (the labelled
    acceptable sections hold one by construction). When the expected section is gone, the first acceptable
    section in answer order takes its place; with none left the query needs memory this agent does not have.
    A pinned section left with none of the query's pinned answer items counts as gone for this query.
    """
    gone = set(removed)
    if expected == "none":
        return "none", ()
    present = [a for a in answer_ids if kept_pinned is None or _section_of(a) != "pinned" or a in kept_pinned]
    if kept_pinned is not None and not any(_section_of(a) == "pinned" for a in present):
        gone.add("pinned")
    holding = [_section_of(a) for a in present]
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
        kept = r.kept_pinned if r.variant.startswith("pinned_few") else None
        expected, acceptable = relabel(r.expected, r.acceptable, r.answer_ids, removed, kept)
        tag = (
            f"{r.set}/{r.variant}" + ("/noid" if identityless else "") + ("/idonly" if identity_only else "")
        )
        tag += "/novec" if vectorless else ""
        out.append(Example(r.id, tag, r.lang, expected, acceptable, r.tags, compute(r.query, evidence)))
    return out


# ------------------------------------------------------------------------------------------ sparse agents
ALL_SECTIONS = ("identity", "pinned", "episodes", "transcript")
#: Agents derived offline from a full profile's evidence (name → sections kept): each section alone and each pair
#: the collected variants do not already give (pinned alone, identity + pinned, transcript alone and identity alone
#: are collected or derived above). Exact for the sections: every section's evidence is measured per agent and per
#: section (per-section IDF and BM25, the section's own vectors), so a section's evidence does not depend on the
#: others. Entities are approximated: the pinned-only agent's (pinned tags) when pinned facts are kept, the full
#: agent's when episodes are kept, none otherwise.
SPARSE_COMBOS: dict[str, tuple[str, ...]] = {
    "e": ("episodes",),
    "id+e": ("identity", "episodes"),
    "id+t": ("identity", "transcript"),
    "p+e": ("pinned", "episodes"),
    "p+t": ("pinned", "transcript"),
    "e+t": ("episodes", "transcript"),
}
#: The pinned-subset agents (collected alone) combined with sections of the full profile: a few pinned facts with
#: the session's transcript, or with the identity.
FEW_WITH: dict[str, tuple[str, ...]] = {"few+t": ("transcript",), "few+id": ("identity",)}


def compose(
    full: QueryEvidence,
    kept: Sequence[str],
    entities: frozenset[str],
    pinned_from: QueryEvidence | None = None,
) -> QueryEvidence:
    """The evidence of an agent holding only the `kept` sections of `full` (pinned facts from `pinned_from` when
    given), the others measured as the read path measures an empty section."""
    sections: dict[Section, SectionEvidence | None] = {}
    for section, e in full.sections.items():
        source = (
            pinned_from.sections.get(section) if pinned_from is not None and section is Section.PINNED else e
        )
        keep = section.value in kept or (pinned_from is not None and section is Section.PINNED)
        sections[section] = (source if keep else SectionEvidence(terms=e.terms)) if e is not None else None
    identity = full.identity if "identity" in kept else IdentitySnapshot()
    cosine = full.identity_cosine if "identity" in kept else None
    return QueryEvidence(sections, identity, entities, cosine)


def sparse_examples(rows: Sequence[Recorded], *, vectorless: bool = False) -> list[Example]:
    """The sparse agents (SPARSE_COMBOS, FEW_WITH) of every query with its full and pinned-only rows, relabelled
    for what each agent holds; Example.split is "<set>/sparse_<name>[/novec]"."""
    by_query: dict[tuple[str, str], dict[str, Recorded]] = {}
    for r in rows:
        by_query.setdefault((r.set, r.id), {})[r.variant] = r
    out: list[Example] = []
    for variants in by_query.values():
        full, pinned_only = variants.get("full"), variants.get("pinned_only")
        if full is None or full.evidence is None or pinned_only is None or pinned_only.evidence is None:
            continue
        agents: list[tuple[str, QueryEvidence, tuple[str, ...], tuple[str, ...] | None]] = []
        for name, kept in SPARSE_COMBOS.items():
            entities = full.evidence.entities if "episodes" in kept else frozenset()
            if "pinned" in kept and "episodes" not in kept:
                entities = pinned_only.evidence.entities
            agents.append((name, compose(full.evidence, kept, entities), kept, None))
        for few in (r for v, r in sorted(variants.items()) if v.startswith("pinned_few")):
            if few.evidence is None:
                continue
            for name, kept in FEW_WITH.items():
                evidence = compose(full.evidence, kept, few.evidence.entities, pinned_from=few.evidence)
                agents.append((f"{name}_{few.variant[-1]}", evidence, (*kept, "pinned"), few.kept_pinned))
        for name, evidence, kept, kept_pinned in agents:
            removed = tuple(s for s in ALL_SECTIONS if s not in kept)
            expected, acceptable = relabel(
                full.expected, full.acceptable, full.answer_ids, removed, kept_pinned
            )
            evidence = without_vectors(evidence) if vectorless else evidence
            tag = f"{full.set}/sparse_{name}" + ("/novec" if vectorless else "")
            out.append(
                Example(
                    full.id, tag, full.lang, expected, acceptable, full.tags, compute(full.query, evidence)
                )
            )
    return out


__all__ = [
    "ALL_SECTIONS",
    "FEW_WITH",
    "IDENTITYLESS_FROM",
    "ITEM_SECTIONS",
    "SPARSE_COMBOS",
    "Recorded",
    "compose",
    "evidence_from_json",
    "examples",
    "only_identity",
    "read",
    "relabel",
    "sparse_examples",
    "without_identity",
    "without_vectors",
]
