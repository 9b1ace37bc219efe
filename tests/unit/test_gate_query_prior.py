"""The query prior (retrieval/query_prior.py): its features, its block in the model file, and the read path feeding
it the query vector the evidence pass made (neutral values when there is none)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

import numpy as np
import numpy.typing as npt
import pytest

from memoryd.read.assemble import ReadPath, ReadPathSettings
from memoryd.retrieval.evidence import SectionEvidence
from memoryd.retrieval.gate_features import FEATURE_NAMES
from memoryd.retrieval.gate_model import CLASSES, GateModel, load, parse
from memoryd.retrieval.items import Section
from memoryd.retrieval.query_prior import PRIOR_FEATURES, QueryPrior, QueryPriorError, features_from
from tests.fakes.memory_reader import InMemoryReader

DIM = 4


def _prior() -> QueryPrior:
    # Class "pinned" grows with the first coordinate, "none" with the second.
    weights = [[0.0] * DIM for _ in CLASSES]
    weights[CLASSES.index(Section.PINNED)][0] = 3.0
    weights[CLASSES.index(Section.NONE)][1] = 3.0
    return QueryPrior(tuple(tuple(row) for row in weights), tuple(0.0 for _ in CLASSES), 1.0)


def _model(prior: QueryPrior | None) -> GateModel:
    names = ("qp_pinned", "qp_memory")
    weights = [[0.0, 0.0] for _ in CLASSES]
    weights[CLASSES.index(Section.PINNED)] = [2.0, 2.0]
    return GateModel(
        version="test-prior",
        features=names,
        mean=(-1.6, 0.0),
        scale=(1.0, 1.0),
        weights=tuple(tuple(row) for row in weights),
        bias=tuple(2.0 if c is Section.NONE else 0.0 for c in CLASSES),
        none_threshold=0.5,
        min_section_probability=0.1,
        query_prior=prior,
    )


def _unit(*values: float) -> npt.NDArray[np.float32]:
    v = np.asarray(values, dtype=np.float32)
    unit: npt.NDArray[np.float32] = v / np.linalg.norm(v)
    return unit


def test_features_are_log_probabilities_and_the_memory_log_odds() -> None:
    f = _prior().features(_unit(1, 0, 0, 0))
    assert set(f) == set(PRIOR_FEATURES)
    p = {name: math.exp(f[name]) for name in PRIOR_FEATURES[:-1]}
    assert sum(p.values()) == pytest.approx(1.0, abs=1e-6)
    assert max(p, key=lambda name: p[name]) == "qp_pinned"
    assert f["qp_memory"] == pytest.approx(math.log(1 - p["qp_none"]) - math.log(p["qp_none"]))
    # Floored: a certain prior stays a finite feature.
    assert features_from([1.0, 0.0, 0.0, 0.0, 0.0])["qp_pinned"] == pytest.approx(math.log(1e-4))
    with pytest.raises(QueryPriorError):
        _prior().features(np.ones(DIM + 1, dtype=np.float32))


def test_the_prior_round_trips_in_the_model_file_and_bad_shapes_are_refused() -> None:
    model = _model(_prior())
    assert parse(model.to_json()) == model
    assert "query_prior" not in json.loads(_model(None).to_json())
    raw = json.loads(model.to_json())
    raw["query_prior"]["weights"] = raw["query_prior"]["weights"][:3]
    with pytest.raises(QueryPriorError):
        parse(json.dumps(raw))


def test_without_a_vector_the_prior_features_are_neutral() -> None:
    model = _model(_prior())
    assert model.prior_features(None) == {"qp_pinned": -1.6, "qp_memory": 0.0}
    assert model.prior_features(np.ones(DIM + 3, dtype=np.float32)) == {"qp_pinned": -1.6, "qp_memory": 0.0}
    assert _model(None).prior_features(_unit(1, 0, 0, 0)) == {}


def test_the_shipped_model_uses_only_known_features() -> None:
    shipped = load()
    assert shipped is not None
    assert set(shipped.features) <= set(FEATURE_NAMES) | set(PRIOR_FEATURES)
    if shipped.query_prior is not None:
        assert shipped.query_prior.dimension == 384
        assert any(name in shipped.features for name in PRIOR_FEATURES)


class _Clock:
    def monotonic(self) -> float:
        return 0.0

    def now(self) -> datetime:
        return datetime(2026, 6, 22, 9, 30, tzinfo=UTC)


class _VectorReader(InMemoryReader):
    """InMemoryReader whose evidence pass ran a vector search (cosines present) and kept the query's vector."""

    def __init__(self, vector: npt.NDArray[np.float32] | None) -> None:
        super().__init__()
        self.vector = vector
        self.asked: list[str] = []

    def sections_evidence(
        self, agent_id: str, scopes: Sequence[Section], query: str, *, vector_timeout_s: float | None = None
    ) -> Mapping[Section, SectionEvidence]:
        cosine = None if self.vector is None else 0.2
        return {s: SectionEvidence(rows=1, cosine_top=cosine, cosine_mean3=cosine) for s in scopes}

    def query_vector(self, query: str) -> npt.NDArray[np.float32] | None:
        self.asked.append(query)
        return self.vector


def test_the_read_path_feeds_the_query_vector_to_the_prior() -> None:
    model = _model(_prior())
    personal = _VectorReader(_unit(1, 0, 0, 0))
    personal.add("a", Section.PINNED, "Maya is vegetarian")
    a = ReadPath(personal, ReadPathSettings, clock=_Clock(), gate_model=model).assemble(
        "a", "suggest a dinner"
    )
    features = dict(a.explanation.features)
    assert features["qp_pinned"] == pytest.approx(_prior().features(_unit(1, 0, 0, 0))["qp_pinned"])
    assert personal.asked == ["suggest a dinner"]
    assert a.section is Section.PINNED and a.reason.startswith("evidence:pinned")
    # The vector of a self-contained question says "none": nothing is injected.
    general = _VectorReader(_unit(0, 1, 0, 0))
    general.add("a", Section.PINNED, "Maya is vegetarian")
    b = ReadPath(general, ReadPathSettings, clock=_Clock(), gate_model=model).assemble(
        "a", "what is a tomato"
    )
    assert b.block == "" and b.reason.startswith("none:")
    # No vector (the embedding timed out): neutral values, which here leave P(none) on top.
    timed_out = _VectorReader(None)
    c = ReadPath(timed_out, ReadPathSettings, clock=_Clock(), gate_model=model).assemble(
        "a", "suggest a dinner"
    )
    assert dict(c.explanation.features)["qp_pinned"] == -1.6 and c.reason.startswith("none:")
    assert timed_out.asked == []
