"""Life-domain evidence (retrieval/domains.py): the shipped prototypes, the match arithmetic, the gate features it
feeds, and MemorySearch measuring it over a real store and faiss registry with the real MiniLM."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from memoryd.config import MemoryConfig
from memoryd.domain import KIND_EPISODE, KIND_PINNED, KIND_TRANSCRIPT
from memoryd.read.search import MemorySearch
from memoryd.retrieval import domains
from memoryd.retrieval.evidence import SectionEvidence
from memoryd.retrieval.gate_features import DOMAIN_FEATURES, FEATURE_NAMES, QueryEvidence, compute
from memoryd.retrieval.items import IdentitySnapshot, Section
from memoryd.storage.store import Store, open_store
from memoryd.vectors.embedding import normalise_query
from memoryd.vectors.registry import VectorRegistry

Vector = npt.NDArray[np.float32]


def test_the_shipped_prototypes_are_unit_vectors_of_the_default_model() -> None:
    prototypes = domains.load()
    assert prototypes is not None
    assert prototypes.model == domains.MODEL == MemoryConfig().embedding_model
    assert prototypes.vectors.shape == (len(prototypes.names), 384)
    assert np.allclose(np.linalg.norm(prototypes.vectors, axis=1), 1.0, atol=1e-4)
    assert {"food", "health", "travel", "work", "family", "pets"} <= set(prototypes.names)


def test_a_bad_file_is_refused() -> None:
    with pytest.raises(domains.DomainFileError):
        domains.parse(json.dumps({"domains": ["a", "b"], "vectors": [[1.0, 0.0]]}))
    with pytest.raises(domains.DomainFileError):
        domains.parse("[]")


def test_match_rewards_the_querys_own_domain_only() -> None:
    query = (0.45, 0.05, 0.02)  # about domain 0
    occupied = (0.6, 0.1, 0.1)
    elsewhere = (0.1, 0.6, 0.1)
    flat = (0.4, 0.4, 0.4)
    assert domains.match(query, occupied)[1] > 0.2
    assert domains.match(query, elsewhere)[1] < 0
    assert domains.match(query, flat)[1] == pytest.approx(0.0, abs=1e-9)
    assert domains.match(query, ()) == (0.0, 0.0)
    assert domains.match((), occupied) == (0.0, 0.0)
    assert sum(domains.distribution(query)) == pytest.approx(1.0)


def _evidence(query_cosines: Sequence[float], occupancy: Sequence[float]) -> QueryEvidence:
    pinned = SectionEvidence(rows=4, domain_query=tuple(query_cosines), domain_rows=tuple(occupancy))
    return QueryEvidence({Section.PINNED: pinned, Section.EPISODES: None}, IdentitySnapshot(), frozenset())


def test_the_features_carry_the_domain_match_and_the_request_kind() -> None:
    assert set(DOMAIN_FEATURES) <= set(FEATURE_NAMES)
    f = compute("suggest a dinner recipe", _evidence((0.45, 0.05, 0.02), (0.6, 0.1, 0.1)))
    assert f["personal_req"] == 1.0 and f["p_dom_rel"] > 0.2 and f["req_x_p_dom"] == f["p_dom_rel"]
    assert f["dom_q_top"] == pytest.approx(0.45) and f["e_dom"] == 0.0
    plain = compute("what is 17 times 23?", _evidence((), ()))
    assert all(plain[name] == 0.0 for name in DOMAIN_FEATURES)
    # The numbers a request gives (its inputs), whatever the language; a version or an address is one token.
    assert compute("600 bouteilles à 14 francs, ça fait combien", _evidence((), ()))["q_numbers"] == 2 / 3
    assert compute("update k8s v1.2 on 10.0.0.1", _evidence((), ()))["q_numbers"] == 1 / 3
    for query in ("plan my week", "que dois-je cuisiner ce soir ?", "was soll ich heute kochen?"):
        assert compute(query, _evidence((), ()))["personal_req"] == 1.0, query


class MiniLM:
    """The real all-MiniLM-L6-v2 from inferd, embedding queries as inferd does (a QueryEmbedder)."""

    def __init__(self) -> None:
        from inferd.backends.blas import ensure_openblas

        ensure_openblas()
        from inferd.backends.mlx_embed import load_mlx_embedder
        from inferd.config import builtin_models
        from inferd.loaders import resolve_source

        spec = next(s for s in builtin_models() if s.name == domains.MODEL)
        self.model = load_mlx_embedder(resolve_source(spec.source), dict(spec.options))

    def vector(self, text: str) -> Vector:
        out = self.model.embed_inline([normalise_query(text)])
        rows: Vector = np.asarray(out if out is not None else self.model.embed([text]), dtype=np.float32)
        return rows[0]

    def embed_query(self, text: str, timeout_s: float | None = None) -> tuple[Vector, str] | None:
        return self.vector(text), domains.MODEL


@pytest.fixture(scope="module")
def minilm() -> Iterator[MiniLM]:
    model = MiniLM()
    yield model
    model.model.close()


def test_minilm_puts_a_question_and_its_answer_in_one_domain(minilm: MiniLM) -> None:
    prototypes = domains.load()
    assert prototypes is not None

    def top(text: str) -> str:
        cosines = prototypes.query_cosines(minilm.vector(text))
        return prototypes.names[int(np.argmax(cosines))]

    assert top("suggest a dinner recipe") == top("I am vegetarian") == "food"
    assert top("should I book the 7am train?") == top("I never take trains before 9am") == "travel"


def _store(tmp_path: Path, minilm: MiniLM, facts: Sequence[str]) -> tuple[Store, VectorRegistry]:
    store = open_store(tmp_path / "memory.sqlite")
    with store.db.write():
        store.agents.ensure("a")
        for i, text in enumerate(facts):
            store.db.execute(
                "INSERT INTO pinned_facts (agent_id, content, salience, tags_csv, created_at_ms, updated_at_ms)"
                " VALUES (?, ?, 0.5, '', ?, ?)",
                ("a", text, i, i),
            )
    ids = [int(r[0]) for r in store.db.query("SELECT id FROM pinned_facts ORDER BY id")]
    registry = VectorRegistry(tmp_path / "vectors", store.embeddings)
    registry.add("a", KIND_PINNED, domains.MODEL, ids, np.vstack([minilm.vector(t) for t in facts]))
    return store, registry


def test_the_evidence_pass_measures_the_pinned_facts_domains(tmp_path: Path, minilm: MiniLM) -> None:
    store, registry = _store(tmp_path, minilm, ["I am vegetarian", "I am allergic to peanuts"])
    search = MemorySearch(store, minilm, registry)
    try:
        kinds = [KIND_PINNED, KIND_EPISODE, KIND_TRANSCRIPT]
        food = search.evidence_many("a", kinds, "suggest a dinner recipe")
        code = search.evidence_many("a", kinds, "how do I reverse a list in python")
        pinned = food[KIND_PINNED]
        assert len(pinned.domain_query) == len(pinned.domain_rows) > 0
        assert food[KIND_TRANSCRIPT].domain_query == ()  # only the distilled sections are measured
        assert code[KIND_PINNED].domain_rows == pinned.domain_rows  # occupancy: measured once, then kept
        assert (
            domains.match(pinned.domain_query, pinned.domain_rows)[1]
            > domains.match(code[KIND_PINNED].domain_query, code[KIND_PINNED].domain_rows)[1]
        )
        # A new fact (the kind's row count changes) is measured again: a dog fills the pets domain.
        prototypes = domains.load()
        assert prototypes is not None
        pets = prototypes.names.index("pets")
        dog = "My dog Rex is a border collie"
        with store.db.write():
            store.db.execute(
                "INSERT INTO pinned_facts (agent_id, content, salience, tags_csv, created_at_ms, updated_at_ms)"
                " VALUES ('a', ?, 0.5, '', 9, 9)",
                (dog,),
            )
        new_id = int(store.db.query("SELECT max(id) FROM pinned_facts")[0][0])
        registry.add("a", KIND_PINNED, domains.MODEL, [new_id], minilm.vector(dog)[None, :])
        search.keyword_stats.invalidate()
        after = search.evidence_many("a", kinds, "what should I feed him?")[KIND_PINNED]
        assert after.domain_rows[pets] > pinned.domain_rows[pets] + 0.05
    finally:
        search.close()
        store.close()
