"""The evidence gate's parts: calibrated evidence, query signals, the model file, the verdict and fall-through."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from memoryd.read.assemble import ReadPath, ReadPathSettings
from memoryd.retrieval.evidence import SectionEvidence, keyword_evidence, vector_evidence
from memoryd.retrieval.gate_evidence import decide_evidence
from memoryd.retrieval.gate_features import FEATURE_NAMES, QueryEvidence, compute
from memoryd.retrieval.gate_model import CLASSES, GateModel, GateModelError, load, parse
from memoryd.retrieval.items import IdentityFact, IdentitySnapshot, ItemKind, ItemRef, Section
from tests.fakes.memory_reader import InMemoryReader

NO_MEMORY = QueryEvidence({}, IdentitySnapshot(), frozenset())


# ------------------------------------------------------------------------------------------------ evidence
def test_coverage_weighs_rare_terms_and_counts_absent_ones() -> None:
    terms = ["ledgerly", "beta", "ship"]
    dfs = {"ledgerly": 1, "beta": 2, "ship": 40}
    docs = {1: "The Ledgerly beta ships on March 14", 2: "Ship the parcel"}
    top, norm, coverage, matched = keyword_evidence(terms, dfs, 100, {1: 5.0, 2: 1.0}, docs)
    assert (top, coverage, matched) == (5.0, 1.0, 1.0)
    assert 0 < norm < 1
    # Only the common word matches: most of the query's information is missing.
    _, _, weak, weak_matched = keyword_evidence(terms, dfs, 100, {2: 1.0}, docs)
    assert weak < 0.2 and weak_matched == pytest.approx(1 / 3)
    assert keyword_evidence([], dfs, 100, {}, {}) == (0.0, 0.0, 0.0, 0.0)


def test_cosine_gap_is_the_nearest_row_against_the_background() -> None:
    top, mean3, gap = vector_evidence([(1, 0.8), (2, 0.3), (3, 0.3), (4, 0.2), (5, 0.2)])
    assert (top, gap) == (0.8, pytest.approx(0.6))
    assert mean3 == pytest.approx((0.8 + 0.3 + 0.3) / 3)
    flat = vector_evidence([(i, 0.5) for i in range(10)])
    assert flat[2] == pytest.approx(0.0)
    assert vector_evidence([]) == (None, None, 0.0)


# --------------------------------------------------------------------------------------------- query signals
@pytest.mark.parametrize(
    ("query", "signal"),
    [
        ("what is 17 * 23?", "sc_math"),
        ("Combien font 12 fois 8 ?", "sc_math"),
        ("def add(a, b): return a + b -- why does this fail?", "sc_code"),
        ("Escribe una función que invierta una lista", "sc_code"),
        ("Translate 'good night' into German", "sc_translate"),
        ("Wie sagt man 'Katze' auf Englisch?", "sc_translate"),
        ("What is the capital of Portugal?", "sc_general"),
        ("Quem escreveu Os Lusíadas?", "sc_general"),
        ("Bonjour !", "sc_greeting"),
    ],
)
def test_complete_in_itself_signals(query: str, signal: str) -> None:
    assert compute(query, NO_MEMORY)[signal] == 1.0


def test_personal_requests_fire_no_self_contained_signal() -> None:
    for query in ("suggest a dinner recipe", "when does the beta ship?", "what's due Wednesday?"):
        f = compute(query, NO_MEMORY)
        assert not any(
            f[name] for name in ("sc_math", "sc_code", "sc_translate", "sc_general", "sc_greeting")
        )


def test_agent_specific_terms_need_the_agents_memory() -> None:
    query = "when does the Ledgerly beta ship?"
    held = SectionEvidence(rows=10, terms=("ledgerly", "beta", "ship"), term_df={"ledgerly": 2, "beta": 1})
    known = compute(query, QueryEvidence({Section.PINNED: held}, IdentitySnapshot(), frozenset()))
    unknown = compute(query, NO_MEMORY)
    assert known["spec_rare_known"] > 0 and unknown["spec_rare_known"] == 0
    assert unknown["rare_unknown"] > 0
    assert known["spec_share"] > unknown["spec_share"] == 0


def test_identity_overlap_and_every_feature_present() -> None:
    identity = IdentitySnapshot(facts=(IdentityFact("1", "Lives in Seattle, Washington"),))
    f = compute("Which neighbourhood of Seattle is quiet?", QueryEvidence({}, identity, frozenset()))
    assert f["id_has"] == 1.0 and f["id_cov"] > 0
    assert list(f) == list(FEATURE_NAMES)


# ------------------------------------------------------------------------------------------------ model file
def _model(bias: dict[Section, float], **kwargs: float) -> GateModel:
    names = ("trig_identity",)
    return GateModel(
        version="test-1",
        features=names,
        mean=(0.0,),
        scale=(1.0,),
        weights=tuple((0.0,) for _ in CLASSES),
        bias=tuple(bias.get(c, 0.0) for c in CLASSES),
        **kwargs,
    )


def test_model_round_trips_and_rejects_bad_shapes() -> None:
    model = _model({Section.PINNED: 2.0})
    again = parse(model.to_json({"data": "unit"}))
    assert again == model
    raw = json.loads(model.to_json())
    raw["weights"] = raw["weights"][:2]
    with pytest.raises(GateModelError):
        parse(json.dumps(raw))
    with pytest.raises(GateModelError):
        parse(json.dumps({**json.loads(model.to_json()), "classes": ["none", "pinned"]}))


def test_shipped_model_matches_the_features() -> None:
    shipped = load()
    assert shipped is not None and shipped.version.startswith("gate-v")
    assert set(shipped.features) <= set(FEATURE_NAMES)


def test_probabilities_and_thresholds() -> None:
    model = _model({Section.NONE: 0.0, Section.PINNED: 1.0, Section.EPISODES: 0.5}, none_threshold=0.3)
    p = model.probabilities({})
    assert sum(p.values()) == pytest.approx(1.0)
    ranked = model.ranked(p)
    assert ranked[0] is Section.PINNED and Section.EPISODES in ranked
    strict = _model({Section.NONE: 3.0, Section.PINNED: 1.0}, none_threshold=0.3)
    assert strict.ranked(strict.probabilities({})) == []


def test_verdict_reasons() -> None:
    says_none = _model({Section.NONE: 5.0})
    maths = compute("what is 17 * 23?", NO_MEMORY)
    assert decide_evidence("what is 17 * 23?", maths, says_none, frozenset()).reason == "none:self_contained"
    chat = compute("tell me a story", NO_MEMORY)
    assert decide_evidence("tell me a story", chat, says_none, frozenset()).reason == "none:no_evidence"
    says_pinned = _model({Section.PINNED: 5.0})
    verdict = decide_evidence("tell me a story", chat, says_pinned, frozenset())
    assert (verdict.section, verdict.reason) == (Section.PINNED, "evidence:pinned")
    # Without a model the trigger phrases decide, as they did before.
    assert decide_evidence("How is Mochi?", {}, None, frozenset({"mochi"})).reason == "trigger:entity"


# ------------------------------------------------------------------------------------------------ fall-through
class _Clock:
    def monotonic(self) -> float:
        return 0.0

    def now(self) -> datetime:
        return datetime(2026, 6, 22, 9, 30, tzinfo=UTC)


def test_an_empty_section_falls_through_to_the_next_supported_one() -> None:
    reader = InMemoryReader()  # no identity at all
    reader.add("a", Section.PINNED, "Maya is vegetarian")
    model = _model(
        {Section.IDENTITY: 3.0, Section.PINNED: 2.5, Section.NONE: -5.0}, min_section_probability=0.1
    )
    path = ReadPath(reader, ReadPathSettings, clock=_Clock(), gate_model=model)
    a = path.assemble("a", "what do vegetarian people eat for dinner")
    assert a.section is Section.PINNED
    assert a.reason.startswith("evidence:identity;fallthrough:identity_empty")
    assert a.placed == (ItemRef(ItemKind.PINNED_FACT, "1"),)
    assert a.explanation.model_version == "test-1"
    assert dict(a.explanation.scores)[Section.IDENTITY] > dict(a.explanation.scores)[Section.PINNED]
    # One search per section, by the evidence pass; the planner reused the pinned hits.
    assert [s[1] for s in reader.searches] == [Section.PINNED, Section.EPISODES, Section.TRANSCRIPT]


def test_nothing_anywhere_ends_in_none() -> None:
    reader = InMemoryReader()
    model = _model({Section.PINNED: 3.0, Section.NONE: -5.0})
    path = ReadPath(reader, ReadPathSettings, clock=_Clock(), gate_model=model)
    a = path.assemble("a", "suggest a dinner recipe")
    assert (a.block, a.placed) == ("", ())
    assert a.reason.startswith("evidence:pinned")
    assert "fallback:transcript_empty" in a.reason
