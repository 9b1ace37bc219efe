"""The frozen gate_v2 data loads, holds the README's invariants, and the validator rejects broken copies of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.gate_v2 import loader
from bench.gate_v2.loader import DATA_DIR, DataError


def _copy(tmp_path: Path, name: str, edit: object) -> Path:
    """Copy one data file into tmp_path, passing each parsed line through `edit` (None drops the line)."""
    out = tmp_path / name
    lines = []
    for line in (DATA_DIR / name).read_text(encoding="utf-8").splitlines():
        row = edit(json.loads(line))  # type: ignore[operator]
        if row is not None:
            lines.append(json.dumps(row, ensure_ascii=False))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def test_frozen_data_is_valid_and_sized_as_the_brief_asks() -> None:
    profiles, queries, probes = loader.load_profiles(), loader.load_queries(), loader.load_probes()
    loader.validate(profiles, queries, probes)
    assert len(profiles) >= 24
    assert len(queries) >= 420
    assert sum(q.expected == "none" for q in queries) / len(queries) >= 0.40
    assert sum("entity_trap" in q.tags for q in queries) >= 30
    assert {q.lang for q in queries if q.split == "test"} == set(loader.LANGS)
    assert len(probes.agents) >= 6 and len(probes.questions) >= 60


def test_every_answer_id_resolves_to_an_item_of_its_section() -> None:
    profiles = loader.load_profiles()
    for q in loader.load_queries():
        sections = profiles[q.profile].item_sections()
        assert all(a in sections for a in q.answer_ids), q.id
        if q.needs_memory:
            assert sections[q.answer_ids[0]] == q.expected, q.id


def test_split_is_by_profile() -> None:
    by_profile: dict[str, set[str]] = {}
    for q in loader.load_queries():
        by_profile.setdefault(q.profile, set()).add(q.split)
    assert all(len(s) == 1 for s in by_profile.values())
    assert len(loader.load_queries(split="test")) == sum(
        1 for q in loader.load_queries() if loader.PROFILE_SPLITS[q.profile] == "test"
    )


def test_identity_ids_are_positional() -> None:
    profile = loader.load_profiles()["en1"]
    assert profile.identity[0].id == "en1.i1"
    assert profile.identity[0].text == "The user's name is Maya Thompson"


def test_lenient_hit_accepts_acceptable_sections_only() -> None:
    query = next(q for q in loader.load_queries() if q.acceptable)
    assert query.is_lenient_hit(query.expected)
    assert query.is_lenient_hit(query.acceptable[0])
    assert not query.is_lenient_hit("none")


def test_validator_rejects_an_unknown_answer_id(tmp_path: Path) -> None:
    def edit(row: dict[str, object]) -> dict[str, object]:
        if row["id"] == "en1.q03":
            row["answer_ids"] = ["en1.p99"]
        return row

    queries = loader.load_queries(_copy(tmp_path, "queries.jsonl", edit))
    with pytest.raises(DataError, match=r"en1\.p99"):
        loader.validate(loader.load_profiles(), queries, loader.load_probes())


def test_validator_rejects_a_query_in_the_wrong_split(tmp_path: Path) -> None:
    def edit(row: dict[str, object]) -> dict[str, object]:
        if row["profile"] == "en3" and row["id"] == "en3.q01":
            row["split"] = "train"
        return row

    queries = loader.load_queries(_copy(tmp_path, "queries.jsonl", edit))
    with pytest.raises(DataError, match=r"en3\.q01: split train"):
        loader.validate(loader.load_profiles(), queries, loader.load_probes())


def test_validator_rejects_an_answer_pointing_at_a_superseded_fact(tmp_path: Path) -> None:
    def edit(row: dict[str, object]) -> dict[str, object]:
        if row["id"] == "en2.q01":
            row["answer_ids"] = ["en2.p2"]
        return row

    queries = loader.load_queries(_copy(tmp_path, "queries.jsonl", edit))
    with pytest.raises(DataError, match="superseded"):
        loader.validate(loader.load_profiles(), queries, loader.load_probes())


def test_validator_rejects_too_few_negatives(tmp_path: Path) -> None:
    def edit(row: dict[str, object]) -> dict[str, object] | None:
        return None if row["expected"] == "none" and row["split"] == "train" else row

    queries = loader.load_queries(_copy(tmp_path, "queries.jsonl", edit))
    with pytest.raises(DataError, match="none share"):
        loader.validate(loader.load_profiles(), queries, loader.load_probes())


def test_validator_rejects_a_correction_whose_answer_was_never_said(tmp_path: Path) -> None:
    def edit(row: dict[str, object]) -> dict[str, object]:
        if row.get("kind") == "correction":
            row["answer_any"] = ["a value nobody said"]
        return row

    probes = loader.load_probes(_copy(tmp_path, "probes.jsonl", edit))
    with pytest.raises(DataError, match="answer_any"):
        loader.validate(loader.load_profiles(), loader.load_queries(), probes)
