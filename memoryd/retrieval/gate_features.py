"""Features of the evidence gate: what this agent's memory holds for a query, plus the query's own signals.

Every feature is a float in a small, fixed range (mostly 0-1) so one model serves agents with ten rows and agents
with a hundred thousand: retrieval scores are calibrated per agent and per query (per-agent IDF, the query's own
BM25 ceiling, cosine of unit vectors), counts are capped. The names are the wire names of the decision's
explanation (AssembleContextResponse.decision.features) and the keys of the model file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from memoryd.retrieval import gate_answer as answer
from memoryd.retrieval import gate_cues as cues
from memoryd.retrieval import gate_frames as frames
from memoryd.retrieval import gate_lexicon as lex
from memoryd.retrieval import gate_request as req
from memoryd.retrieval import gate_signals as sig
from memoryd.retrieval.answer_kinds import asked_kinds
from memoryd.retrieval.evidence import SectionEvidence
from memoryd.retrieval.gate import TRIGGERS, clip, entity_hits, fold, trigger_flags
from memoryd.retrieval.gate_asker import ASKER_FEATURES, asker_features
from memoryd.retrieval.gate_dates import without_dates
from memoryd.retrieval.gate_duty import DUTY_FEATURES, duty_features
from memoryd.retrieval.gate_own import own_names
from memoryd.retrieval.gate_personal import FOR_USER_FEATURES, for_user_features
from memoryd.retrieval.gate_recall import RECALL_FEATURES, recall_features
from memoryd.retrieval.gate_slots import SLOT_FEATURES, slot_features
from memoryd.retrieval.items import IdentitySnapshot, Section
from memoryd.retrieval.terms import fold as term_fold
from memoryd.retrieval.terms import index_term, query_terms, term_counts, tokens

#: Sections searched for evidence, with their feature prefixes.
SEARCHED = {Section.PINNED: "p", Section.EPISODES: "e", Section.TRANSCRIPT: "t"}
#: A word below this Zipf frequency is "rare in general language" (about once per 300k words).
RARE_ZIPF = 3.5
#: Counts are capped here before scaling to 0-1.
COUNT_CAP = 3

_MATH = sig.compile_any(sig.MATH)
_CODE = sig.compile_any(sig.CODE)
_TRANSLATE = sig.compile_any(sig.TRANSLATE)
_GENERAL = sig.compile_any(sig.GENERAL)
_GREETING = sig.compile_any(sig.GREETING)
_MEMORY_TOPIC = sig.compile_any(sig.MEMORY_TOPIC)
_HOWTO = sig.compile_any(sig.HOWTO)
_ADVICE = sig.compile_any(sig.ADVICE)
_ASK_WHEN = sig.compile_any(sig.ASK_WHEN)
_PERSONAL_TOPIC = sig.compile_any(sig.PERSONAL_TOPIC)
_WE_VERB = sig.compile_any(sig.WE_VERB)
_WORD = re.compile(r"\w+")
#: A number the user gives (digits, with decimal or thousands separators): a request carrying two or more of them
#: usually carries its inputs ("600 bottles at 14 francs, how much is that").
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?![\w])")

#: "Complete in itself" signals: when one fires and the gate says none, the reason is none:self_contained.
SELF_CONTAINED = ("sc_math", "sc_code", "sc_translate", "sc_general", "sc_greeting")


def _section_names(prefix: str) -> list[str]:
    return [
        f"{prefix}_{name}" for name in ("has", "cov", "match", "bm25", "cos", "cos3", "cos_rel", "cos_gap")
    ]


#: gate-v5's request-structure features (gate_request.py): about the world, and the request beyond its names.
STRUCTURE_FEATURES = req.STRUCTURE_FEATURES
#: gate-v6's features: request frames (gate_frames.py: about the world / about the asker), answer kinds and the
#: rows naming the request's thing (gate_answer.py), and their products with the names a request gives.
GATE_V6_FEATURES: tuple[str, ...] = (
    *frames.FRAME_FEATURES,
    *answer.ANSWER_FEATURES,
    "world_x_named",
    "world_x_bare",
    "self_x_named",
    "world_x_p_known",
    "world_x_e_known",
    "world_x_t_known",
)
#: gate-v7: the request names a person or thing that exists in this agent's memory and not in the world's
#: (gate_own.py); such a request is never ask_world.
GATE_V7_FEATURES: tuple[str, ...] = ("own_name",)
#: gate-v8: a personal request (something chosen, made or planned for the asker) and the pinned section's nearest
#: fact against this agent's other pinned facts (gate_personal.py): the evidence bar for pinned alone.
GATE_V8_FEATURES: tuple[str, ...] = FOR_USER_FEATURES
#: gate-v9: the request's open slot — about the world or the user, what was said, what was decided, an identity
#: slot, a task with its inputs given (gate_slots.py) — and whether the identity holds a place.
GATE_V9_FEATURES: tuple[str, ...] = SLOT_FEATURES
#: gate-v10: what the request presupposes — a fact told before (a reminder), its value as it stands now, or no
#: asker at all (curiosity, not for me) — with their products (gate_recall.py).
GATE_V10_FEATURES: tuple[str, ...] = RECALL_FEATURES
#: gate-v11: whether the asker is the request's subject — a question about the asker, a document about the asker —
#: with their products with the identity (gate_asker.py).
GATE_V11_FEATURES: tuple[str, ...] = ASKER_FEATURES
#: gate-v12: whether the request presupposes a commitment (a deadline, a duty) and its product with the sections'
#: evidence; a personal request naming rare words memory does not hold (gate_duty.py).
GATE_V12_FEATURES: tuple[str, ...] = DUTY_FEATURES
#: How many numbers the request gives (count/3): a request carrying two or more usually carries its inputs
#: ("600 bottles at 14 francs, how much is that"), in any language (gate-v4).
REQUEST_FEATURES: tuple[str, ...] = ("q_numbers",)

#: Features computed from the others (derive()): products and maxima a linear model cannot form itself.
DERIVED: tuple[str, ...] = (
    "i_x_p_cos",
    "i_x_p_cov",
    "we_x_e_cos",
    "sc_any_x_spec",
    "ev_max_cov",
    "ev_max_gap",
    "p_best",
    "e_best",
    "t_best",
    "id_best",
    "topic_x_p_has",
    "topic_x_id_has",
    "p_cos_best",
    "e_cos_best",
    "t_cos_best",
    "p_cov_x_cos",
    "e_cov_x_cos",
    "t_cov_x_cos",
)

#: Every feature, in model order.
FEATURE_NAMES: tuple[str, ...] = (
    "q_terms",
    "q_long",
    "q_question",
    "person_i",
    "person_we",
    "person_you",
    "we_verb",
    "memory_topic",
    "howto",
    "advice",
    "ask_when",
    "personal_topic",
    *(f"trig_{name}" for name in TRIGGERS),
    "entity_hits",
    *SELF_CONTAINED,
    "spec_known",
    "spec_share",
    "spec_rare_known",
    "rare_unknown",
    "vec_on",
    *(name for prefix in SEARCHED.values() for name in _section_names(prefix)),
    "id_has",
    "id_cov",
    "id_facts",
    "id_vec",
    "id_cos",
    "id_cos_rel",
    *cues.CUE_FEATURES,
    *cues.share_features(tuple(SEARCHED.values())),
    *REQUEST_FEATURES,
    *DERIVED,
    *req.STRUCTURE_FEATURES,
    *GATE_V6_FEATURES,
    *GATE_V7_FEATURES,
    *GATE_V8_FEATURES,
    *GATE_V9_FEATURES,
    *GATE_V10_FEATURES,
    *GATE_V11_FEATURES,
    *GATE_V12_FEATURES,
)


@dataclass(frozen=True)
class QueryEvidence:
    """Everything the features are computed from: the agent's section evidence, identity and entities."""

    sections: Mapping[Section, SectionEvidence | None]
    identity: IdentitySnapshot
    entities: frozenset[str]
    #: Highest cosine of the query to the identity facts and narrative; None when not measured.
    identity_cosine: float | None = None


def _cap(n: int) -> float:
    return min(n, COUNT_CAP) / COUNT_CAP


def _rarities(query: str) -> dict[str, float]:
    """Rarity of each folded query word, looked up on its accented surface form (what wordfreq knows)."""
    out: dict[str, float] = {}
    for word in lex.surface_words(query):
        key = term_fold(word)
        out[key] = max(out.get(key, 0.0), lex.rarity(word))
    return out


def compute(query: str, evidence: QueryEvidence) -> dict[str, float]:
    """The feature vector of `query` against this agent's memory (keys: FEATURE_NAMES)."""
    scanned = clip(query)
    folded = fold(scanned)
    words = _WORD.findall(folded)
    terms = query_terms(scanned)
    rarity = _rarities(scanned)
    f: dict[str, float] = dict.fromkeys(FEATURE_NAMES, 0.0)
    f["q_terms"] = min(len(terms), 12) / 12
    f["q_long"] = 1.0 if len(scanned) > 400 else 0.0
    f["q_question"] = 1.0 if "?" in scanned else 0.0
    f["person_i"] = _cap(sum(w in sig.FIRST_SINGULAR for w in words))
    f["person_we"] = _cap(sum(w in sig.FIRST_PLURAL for w in words))
    f["person_you"] = _cap(sum(w in sig.SECOND_PERSON for w in words))
    f["we_verb"] = 1.0 if _WE_VERB.search(folded) else 0.0
    f["memory_topic"] = 1.0 if _MEMORY_TOPIC.search(folded) else 0.0
    f["howto"] = 1.0 if _HOWTO.search(folded) else 0.0
    f["advice"] = 1.0 if _ADVICE.search(folded) else 0.0
    f["ask_when"] = 1.0 if _ASK_WHEN.search(folded) else 0.0
    f["personal_topic"] = 1.0 if _PERSONAL_TOPIC.search(folded) else 0.0
    for name, fired in trigger_flags(scanned, evidence.entities).items():
        f[f"trig_{name}"] = 1.0 if fired else 0.0
    f["entity_hits"] = _cap(entity_hits(folded, evidence.entities))
    f["sc_math"] = 1.0 if _MATH.search(folded) else 0.0
    f["sc_code"] = 1.0 if _CODE.search(folded) else 0.0
    f["sc_translate"] = 1.0 if _TRANSLATE.search(folded) else 0.0
    f["sc_general"] = 1.0 if _GENERAL.search(folded) else 0.0
    f["sc_greeting"] = 1.0 if _GREETING.search(folded) and len(terms) <= 6 else 0.0

    # Agent-specific terms: in this agent's memory (any section, or the identity) and rare in general language.
    identity_text = " ".join([evidence.identity.narrative, *(fact.text for fact in evidence.identity.facts)])
    identity_counts = term_counts(identity_text) if identity_text.strip() else None
    agent_df: dict[str, int] = {}
    for section_evidence in evidence.sections.values():
        if section_evidence is not None:
            for term, df in section_evidence.term_df.items():
                agent_df[term] = agent_df.get(term, 0) + df
    total_rarity = known_rarity = 0.0
    rare_known = rare_unknown = 0
    id_weight = 0.0
    known_terms: set[str] = set()
    named_terms: set[str] = set()
    name_tokens = frozenset(cues.names(scanned))
    for term in terms:
        weight = max(rarity.get(term, 1.0), 0.05)
        is_in_identity = identity_counts is not None and identity_counts.get(index_term(term), 0) > 0
        is_known = agent_df.get(term, 0) > 0 or is_in_identity
        total_rarity += weight
        if is_known:
            known_rarity += weight
            known_terms.add(term)
        if is_in_identity:
            id_weight += weight
        is_rare = rarity.get(term, 1.0) >= 1.0 - RARE_ZIPF / 7.0
        if is_known and (is_rare or term in name_tokens):
            named_terms.add(term)
        if is_rare and is_known:
            rare_known += 1
        elif is_rare:
            rare_unknown += 1
    identity_terms = frozenset(tokens(identity_text)) if identity_counts is not None else frozenset()
    undated = without_dates(folded)
    f.update(cues.cue_features(scanned, words, agent_df, identity_terms, undated))
    weights = {term: max(rarity.get(term, 1.0), 0.05) for term in terms}
    f.update(
        cues.section_shares(
            weights,
            {
                prefix: (e.term_df if (e := evidence.sections.get(section)) is not None else {})
                for section, prefix in SEARCHED.items()
            },
        )
    )
    f["spec_known"] = min(known_rarity, 3.0) / 3.0
    f["spec_share"] = known_rarity / total_rarity if total_rarity > 0 else 0.0
    f["spec_rare_known"] = _cap(rare_known)
    f["rare_unknown"] = _cap(rare_unknown)

    cosines = [e.cosine_top for e in evidence.sections.values() if e is not None and e.cosine_top is not None]
    f["vec_on"] = 1.0 if cosines else 0.0
    best_cosine = max(cosines, default=0.0)
    for section, prefix in SEARCHED.items():
        e = evidence.sections.get(section)
        if e is None:
            continue
        f[f"{prefix}_has"] = 1.0 if e.rows > 0 else 0.0
        f[f"{prefix}_cov"] = e.coverage_top
        f[f"{prefix}_match"] = e.matched_top
        f[f"{prefix}_bm25"] = min(e.bm25_norm, 1.0)
        f[f"{prefix}_cos"] = max(e.cosine_top or 0.0, 0.0)
        f[f"{prefix}_cos3"] = max(e.cosine_mean3 or 0.0, 0.0)
        # How this section's nearest row compares with the best section's (0 = it is the best; a section without
        # vectors counts as cosine 0, so an empty section never looks better than one with rows).
        f[f"{prefix}_cos_rel"] = (e.cosine_top or 0.0) - best_cosine
        f[f"{prefix}_cos_gap"] = max(e.cosine_gap, 0.0)

    f["q_numbers"] = min(len(_NUMBER.findall(undated)), 3) / 3
    f.update(
        req.structure_features(
            {term: max(rarity.get(term, 1.0), 0.05) for term in terms},
            known_terms,
            named_terms,
            impersonal=req.is_impersonal(words, f["we_verb"] > 0),
            self_contained=is_self_contained(f),
            section_df={
                prefix: (e.term_df if (e := evidence.sections.get(section)) is not None else {})
                for section, prefix in SEARCHED.items()
            },
        )
    )

    own = own_names(
        name_tokens,
        {term: 7.0 * (1.0 - r) for term, r in rarity.items()},
        {
            prefix: (e.rows, e.term_df)
            for section, prefix in SEARCHED.items()
            if (e := evidence.sections.get(section)) is not None
        },
        identity_terms,
    )
    f["own_name"] = 1.0 if own else 0.0
    f.update(frames.frame_features(folded, words, names_own=bool(own)))
    f.update(
        answer.answer_features(
            asked_kinds(scanned),
            {term: max(rarity.get(term, 1.0), 0.05) for term in terms},
            named_terms,
            {prefix: evidence.sections.get(section) for section, prefix in SEARCHED.items()},
            [fact.text for fact in evidence.identity.facts],
        )
    )
    named = 1.0 if named_terms else 0.0
    f["world_x_named"] = f["ask_world"] * named
    f["world_x_bare"] = f["ask_world"] * f["named_bare"]
    f["self_x_named"] = f["ask_self"] * named
    for prefix in SEARCHED.values():
        f[f"world_x_{prefix}_known"] = f["ask_world"] * f.get(f"{prefix}_known", 0.0)

    f["id_has"] = 1.0 if identity_counts is not None else 0.0
    f["id_cov"] = id_weight / total_rarity if total_rarity > 0 else 0.0
    f["id_facts"] = min(math.log1p(len(evidence.identity.facts)) / math.log1p(20), 1.0)
    if evidence.identity_cosine is not None:
        f["id_vec"] = 1.0
        f["id_cos"] = max(evidence.identity_cosine, 0.0)
        f["id_cos_rel"] = evidence.identity_cosine - best_cosine if cosines else 0.0
    f.update(for_user_features(folded, f))
    f.update(recall_features(folded, f))
    f.update(
        slot_features(
            folded,
            words,
            f,
            names_own=bool(own),
            identity_facts=[fact.text for fact in evidence.identity.facts],
        )
    )
    f.update(asker_features(folded, f))
    f.update(duty_features(folded, f))
    return derive(f)


def derive(f: dict[str, float]) -> dict[str, float]:
    """Fill the DERIVED features from the others, in place (also used on saved features when re-fitting)."""
    # "my …" with pinned evidence, "we …" with episodes, a self-contained request naming known terms.
    f["i_x_p_cos"] = f.get("person_i", 0.0) * f.get("p_cos", 0.0)
    f["i_x_p_cov"] = f.get("person_i", 0.0) * f.get("p_cov", 0.0)
    f["we_x_e_cos"] = f.get("person_we", 0.0) * f.get("e_cos", 0.0)
    f["sc_any_x_spec"] = max(f.get(name, 0.0) for name in SELF_CONTAINED) * f.get("spec_share", 0.0)
    # Where the keyword evidence is strongest: the section whose best row covers most of the query.
    coverage = {p: f.get(f"{p}_cov", 0.0) for p in ("p", "e", "t", "id")}
    best = max(coverage.values())
    f["ev_max_cov"] = best
    f["ev_max_gap"] = max(f.get(f"{p}_cos_gap", 0.0) for p in ("p", "e", "t"))
    for prefix, value in coverage.items():
        f[f"{prefix}_best"] = 1.0 if best > 0 and value >= best else 0.0
    # A personal topic ("a dinner recipe") with facts about the person to answer it.
    f["topic_x_p_has"] = f.get("personal_topic", 0.0) * f.get("p_has", 0.0)
    f["topic_x_id_has"] = f.get("personal_topic", 0.0) * f.get("id_has", 0.0)
    # Which section's nearest row is nearest of all (only when vectors ran), and keyword x vector agreement.
    vectors = f.get("vec_on", 0.0)
    for prefix in ("p", "e", "t"):
        has = f.get(f"{prefix}_has", 0.0)
        f[f"{prefix}_cos_best"] = vectors * has * (1.0 if f.get(f"{prefix}_cos_rel", 0.0) >= 0 else 0.0)
        f[f"{prefix}_cov_x_cos"] = f.get(f"{prefix}_cov", 0.0) * f.get(f"{prefix}_cos", 0.0)
    return f


def is_self_contained(features: Mapping[str, float]) -> bool:
    """Whether any "complete in itself" signal fired."""
    return any(features.get(name, 0.0) > 0 for name in SELF_CONTAINED)


__all__ = [
    "DERIVED",
    "FEATURE_NAMES",
    "GATE_V6_FEATURES",
    "GATE_V7_FEATURES",
    "GATE_V8_FEATURES",
    "GATE_V9_FEATURES",
    "GATE_V10_FEATURES",
    "GATE_V11_FEATURES",
    "GATE_V12_FEATURES",
    "REQUEST_FEATURES",
    "SEARCHED",
    "SELF_CONTAINED",
    "STRUCTURE_FEATURES",
    "QueryEvidence",
    "compute",
    "derive",
    "is_self_contained",
]
