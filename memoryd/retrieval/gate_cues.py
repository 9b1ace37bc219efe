"""Evidence-gate features that do not depend on the query's language, and the per-section keyword shares.

MiniLM is an English encoder: for a French or Portuguese query its cosines say little, so the gate needs evidence
that holds in any language. Three cues do: numbers ("06:10", "14"), names (capitalised words past the first,
"Mochi", "Évora") and dates (month and weekday words in our five languages), each either present in this agent's
memory (the query is about the user's world) or absent from it (a named thing memory has never seen: often a
general-knowledge question). And for choosing the section, which section holds the query's informative terms at
all (rarity-weighted share of the query's terms found anywhere in it), whatever the language of the encoder.

Everything here is computed from the evidence the read path already measured (each section's term document
frequencies), so it costs no query to the store.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from memoryd.retrieval.terms import fold as term_fold

#: Month and weekday words (folded) in en/fr/es/de/pt, short forms included.
DATE_WORDS = frozenset(
    """
    january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec
    monday tuesday wednesday thursday friday saturday sunday
    janvier fevrier mars avril mai juin juillet aout septembre octobre novembre decembre
    lundi mardi mercredi jeudi vendredi samedi dimanche
    enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre
    lunes martes miercoles jueves viernes sabado domingo
    januar janner februar marz april juni juli oktober dezember
    montag dienstag mittwoch donnerstag freitag samstag sonntag sonnabend
    janeiro fevereiro marco maio junho julho setembro outubro novembro dezembro
    segunda terca quarta quinta sexta sabado
    """.split()  # noqa: SIM905 - a word list reads better as text
)
#: Capitalised words that are no name in any of our languages (sentence openers, titles, pronouns).
_NOT_NAMES = frozenset(
    """
    i im ive id ill ok okay hi hey please thanks and but or so the a an what when where who why how which
    je tu il elle nous vous on le la les un une des et mais ou donc quand qui quoi comment pourquoi
    yo el ella nosotros usted ustedes los las uno y pero o cuando quien que como por porque donde
    ich du er sie es wir ihr der die das ein eine und aber oder wann wer was wie warum wo
    eu voce ele ela nos o os um uma e mas ou quando quem que como porque onde
    herr frau senor senora senhor senhora monsieur madame mr mrs ms dr
    """.split()  # noqa: SIM905 - a word list reads better as text
)
_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
_SENTENCE_START = re.compile(r"(?:^|[.!?¿¡:;\n]\s*|[\"“«(]\s*)$")


def _folded_tokens(word: str) -> list[str]:
    return [piece for piece in re.split(r"[\W_]+", term_fold(word)) if piece]


def names(query: str) -> list[str]:
    """Folded tokens of the capitalised words that are not the first of a sentence (likely names); a month or
    weekday word is a date, never a name (gate-v7)."""
    out: list[str] = []
    for match in _WORD.finditer(query):
        word = match.group()
        if not word[0].isupper() or _SENTENCE_START.search(query[: match.start()]):
            continue
        out.extend(
            t
            for t in _folded_tokens(word)
            if len(t) > 1 and t not in _NOT_NAMES and t not in DATE_WORDS and not t.isdigit()
        )
    return out


def numbers(query: str) -> list[str]:
    """Digit runs of the query ("06:10" gives "06" and "10")."""
    return re.findall(r"\d+", query)


def dates(folded_words: list[str]) -> list[str]:
    """Month and weekday words among folded words."""
    return [w for w in folded_words if w in DATE_WORDS]


def _known(token: str, agent_df: Mapping[str, int], identity_terms: frozenset[str]) -> bool:
    return agent_df.get(token, 0) > 0 or token in identity_terms


def cue_features(
    query: str,
    folded_words: list[str],
    agent_df: Mapping[str, int],
    identity_terms: frozenset[str],
    number_text: str | None = None,
) -> dict[str, float]:
    """Names, numbers and dates of the query, known to this agent's memory or not (0/1 each).

    agent_df: documents of the agent's memory holding each query term (summed over sections); identity_terms:
    folded words of the identity. A one-digit number is no cue (every memory has them). number_text (gate-v7): the
    query without its dates (gate_dates.without_dates): a date's numbers count when memory holds them ("14" of "el
    14 de noviembre" against "14 November") but never as numbers memory lacks (a day or a year memory's text does
    not spell out says nothing about the world); the query itself by default.
    """
    found_names = names(query)
    found_numbers = [n for n in numbers(query) if len(n) >= 2]
    own_numbers = found_numbers if number_text is None else [n for n in numbers(number_text) if len(n) >= 2]
    found_dates = dates(folded_words)
    known_names = [n for n in found_names if _known(n, agent_df, identity_terms)]
    known_numbers = [n for n in found_numbers if _known(n, agent_df, identity_terms)]
    unknown_numbers = [n for n in own_numbers if not _known(n, agent_df, identity_terms)]
    known_dates = [d for d in found_dates if _known(d, agent_df, identity_terms)]
    return {
        "cue_name_known": 1.0 if known_names else 0.0,
        "cue_name_unknown": 1.0 if len(known_names) < len(found_names) else 0.0,
        "cue_number_known": 1.0 if known_numbers else 0.0,
        "cue_number_unknown": 1.0 if unknown_numbers else 0.0,
        "cue_date_known": 1.0 if known_dates else 0.0,
    }


def section_shares(
    weights: Mapping[str, float], section_df: Mapping[str, Mapping[str, int]]
) -> dict[str, float]:
    """For each section prefix, the rarity-weighted share of the query's terms found anywhere in that section,
    and whether it is the section holding the largest share (ties: every tied section).

    weights: each query term's rarity weight; section_df: prefix → that section's term document frequencies.
    """
    total = sum(weights.values())
    shares = {
        prefix: (sum(w for t, w in weights.items() if df.get(t, 0) > 0) / total if total > 0 else 0.0)
        for prefix, df in section_df.items()
    }
    best = max(shares.values(), default=0.0)
    out: dict[str, float] = {}
    for prefix, share in shares.items():
        out[f"{prefix}_known"] = share
        out[f"{prefix}_known_best"] = 1.0 if best > 0 and share >= best else 0.0
    return out


#: Feature names this module adds, in model order.
CUE_FEATURES: tuple[str, ...] = (
    "cue_name_known",
    "cue_name_unknown",
    "cue_number_known",
    "cue_number_unknown",
    "cue_date_known",
)


def share_features(prefixes: tuple[str, ...]) -> tuple[str, ...]:
    """The names section_shares gives for these prefixes."""
    return tuple(f"{p}_{suffix}" for p in prefixes for suffix in ("known", "known_best"))


__all__ = [
    "CUE_FEATURES",
    "DATE_WORDS",
    "cue_features",
    "dates",
    "names",
    "numbers",
    "section_shares",
    "share_features",
]
