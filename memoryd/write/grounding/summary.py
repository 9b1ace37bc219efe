"""The extractive summary and topics: the session's most central user sentences, used when the model's fail."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection, Sequence

from memoryd.write.grounding.fitness import speaks_of_user
from memoryd.write.grounding.lexicon import (
    ABOUT_ASSISTANT,
    CHIT_CHAT,
    FIRST_PERSON,
    HYPOTHETICAL,
    LEAD_FILLER,
    SMALL_TALK,
)
from memoryd.write.grounding.model import Entity, GroundedFact, SourceTurn
from memoryd.write.grounding.text import (
    content_tokens,
    detect_language,
    fold,
    light_stem,
    sentences,
    word_set,
)
from memoryd.write.grounding.unfit import digressions, unfit_reason

MAX_SUMMARY_CHARS = 300
MAX_SUMMARY_SENTENCES = 3
MAX_TOPICS = 5
_MIN_CONTENT_WORDS = 3
_EN_SUBJECT = (
    (re.compile(r"\bI (?:don't|don’t)\b"), "the user doesn't"),
    (re.compile(r"\bI do not\b"), "the user does not"),
    (re.compile(r"\b(?:and|&) I are\b"), "and the user are"),  # "Wei and I are": a plural subject keeps "are"
    (re.compile(r"\bI(?:'m| am)\b"), "the user is"),
    (re.compile(r"\bI(?:'ve| have)\b"), "the user has"),
    (re.compile(r"\bI(?:'ll| will)\b"), "the user will"),
    (re.compile(r"\bI(?:'d| would)\b"), "the user would"),
    (re.compile(r"\bI was\b"), "the user was"),
    (re.compile(r"\bI\b"), "the user"),
    (re.compile(r"\bmy\b", re.IGNORECASE), "the user's"),
)
#: Object forms, replaced after the verbs agree: "the user" standing for "me" is no subject ("from me by Friday"
#: is not "from the user bies Friday", "reminds me why" not "whies").
_EN_OBJECT = (
    (re.compile(r"\bme\b"), "the user"),
    (re.compile(r"\bmyself\b"), "themselves"),
)


_AFTER_USER = re.compile(
    r"\bthe user ((?:(?:no longer|no more|not only|not just|hardly ever|ever|now|then|once|soon|first|later|really|also|just|still|usually|often|never|always|actually|only|even|already|sometimes|"
    r"rarely|normally|generally|mostly|finally|definitely|probably|honestly|basically|literally|seriously|totally|"
    r"absolutely|certainly|currently|recently|genuinely|simply|mainly|typically|occasionally|hardly|barely) )+)?"
    r"([a-z]+)\b(?![-'’])"
)
_NOT_VERBS = frozenset(
    [
        "is",
        "are",
        "were",
        "am",
        "won",
        "was",
        "has",
        "will",
        "would",
        "can",
        "could",
        "should",
        "must",
        "might",
        "may",
        "did",
        "does",
        # Never a verb after "I": "I no longer …" is not "the user noes longer" (the adverbs above take the phrase).
        "no",
        "not",
        "nor",
        "and",
        "or",
        "who",
        "that",
        "the",
        "a",
        "an",
        "to",
        "of",
        "in",
        "at",
        "on",
        "for",
        "with",
        "as",
        # Irregular past forms: "the user made" already agrees ("mades" is no word).
        *[
            "made",
            "had",
            "got",
            "did",
            "went",
            "came",
            "saw",
            "took",
            "gave",
            "found",
            "told",
            "thought",
            "felt",
            "kept",
            "left",
            "lost",
            "met",
            "paid",
            "put",
            "ran",
            "said",
            "sat",
            "sent",
            "set",
            "sold",
            "spent",
            "stood",
            "taught",
            "won",
            "wrote",
            "bought",
            "brought",
            "built",
            "caught",
            "chose",
            "drove",
            "ate",
            "fell",
            "flew",
            "forgot",
            "grew",
            "heard",
            "knew",
            "led",
            "let",
            "meant",
            "read",
            "rode",
            "rose",
            "shook",
            "slept",
            "spoke",
            "stuck",
            "threw",
            "woke",
            "wore",
            "used",
        ],
    ]
)


def _agree(match: re.Match[str]) -> str:
    adverb, verb = match.group(1), match.group(2)
    already_agrees = (verb.endswith("s") and not verb.endswith("ss")) or (
        verb.endswith("ed") and not verb.endswith("eed")
    )
    if verb in _NOT_VERBS or already_agrees:
        return match.group(0)
    if verb.endswith(("sh", "ch", "x", "o", "z", "ss")):
        verb += "es"
    elif verb.endswith("y") and verb[-2:-1] not in "aeiou":
        verb = verb[:-1] + "ies"
    else:
        verb += "s"
    return f"the user {adverb}{verb}" if adverb else f"the user {verb}"


#: A question in the summary is quoted, not rewritten: "The user asked: "How do I …?"" stays the user's words.
_ASKED = {
    "en": "The user asked: “{q}”",
    "fr": "L'utilisateur a demandé : « {q} »",
    "es": "El usuario preguntó: «{q}»",
    "de": "Der Nutzer fragte: „{q}“",
    "pt": "O usuário perguntou: “{q}”",
}


def third_person(sentence: str) -> str:
    """An English sentence with "I"/"my" said as "the user", the verb after it agreeing ("I live" → "the user lives")."""
    for pattern, replacement in _EN_SUBJECT:
        sentence = pattern.sub(replacement, sentence)
    sentence = _AFTER_USER.sub(_agree, sentence)
    for pattern, replacement in _EN_OBJECT:
        sentence = pattern.sub(replacement, sentence)
    return sentence[:1].upper() + sentence[1:]


def _stems(text: str) -> frozenset[str]:
    return frozenset(light_stem(t) for t in content_tokens(text))


def _clip(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    cut = text[: max_chars - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;: ") + "…"


#: A name called out at the end of a sentence ("Way to go, Ines!"), left out of what the sentence is about.
_VOCATIVE = re.compile(r",\s*(?-i:[A-ZÀ-ÖØ-Þ][\w'’-]+)\s*[!.?…]*\s*$")
#: A summary holds no run of this many words twice (the bench's and the verifier's loop check).
REPEAT_RUN_WORDS = 4


def _repeats_run(candidate: str, kept: Sequence[str]) -> bool:
    """Whether the summary with the candidate after what it already holds repeats a REPEAT_RUN_WORDS-word run
    (across sentence ends too: "No worries, Jon! No worries, Jon!")."""
    found = [fold(w) for w in re.findall(r"\w+", " ".join([*kept, candidate]))]
    runs = [tuple(found[i : i + REPEAT_RUN_WORDS]) for i in range(len(found) - REPEAT_RUN_WORDS + 1)]
    return len(runs) != len(set(runs))


def repeats_run(text: str) -> bool:
    """Whether a text holds some REPEAT_RUN_WORDS-word run twice, whatever its words ("the user is a … the user is
    a"): a summary that does reads as a loop, so none is stored."""
    return _repeats_run(text, [])


def _without_repeats(parts: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
    """The parts in order, each dropped that would repeat a run of those kept before it."""
    kept: list[tuple[str, int]] = []
    for text, turn in parts:
        if not _repeats_run(text, [k for k, _ in kept]):
            kept.append((text, turn))
    return kept


def extractive_summary(
    turns: Sequence[SourceTurn], decisions: Sequence[GroundedFact] = (), evidence: Collection[str] = ()
) -> tuple[str, tuple[int, ...]]:
    """1-3 central user sentences (centroid over content-word stems), decisions first; ≤ 300 chars, secrets redacted.

    The sentences that hold a clause a fact was read from (`evidence`) come first: what the session established,
    through every filter a fact goes through. Without one, the sentences that speak of the user ("I", "we", in five
    languages); without those, every fit sentence. The weather, a match or a festival said in passing is none of
    the first two."""
    pool: list[tuple[int, int, str, frozenset[str]]] = []
    for turn in turns:
        said = sentences(turn.user)
        aside = digressions(said)
        for position, sentence in enumerate(said):
            cleaned = LEAD_FILLER.sub("", sentence).strip()
            if (
                position in aside
                or HYPOTHETICAL.search(cleaned)
                or (SMALL_TALK.search(cleaned) and len(cleaned) < 40)
            ):
                continue
            if CHIT_CHAT.search(cleaned) or (
                ABOUT_ASSISTANT.search(cleaned) and not FIRST_PERSON.search(cleaned)
            ):
                continue  # leaving for lunch, the weather, "you're probably a cat person": not what happened
            # "No worries, Ines!": the name called out is not what the sentence says.
            stems = frozenset(light_stem(t) for t in content_tokens(_VOCATIVE.sub("", cleaned)))
            if len(stems) < _MIN_CONTENT_WORDS or unfit_reason(cleaned):
                continue  # a credential, small talk, someone else's opinion, the assistant's guess: not the user's
            pool.append((len(pool), turn.index, cleaned, stems))
    read = [fold(clause).strip(" .!?") for clause in evidence if clause.strip()]
    stated = [item for item in pool if any(clause and clause in fold(item[2]) for clause in read)]
    about_user = [item for item in pool if speaks_of_user(item[2])]
    pool = [(i, turn, text, stems) for i, (_, turn, text, stems) in enumerate(stated or about_user or pool)]
    session_lang = detect_language(" ".join(turn.user for turn in turns))
    frequency: Counter[str] = Counter(stem for *_, stems in pool for stem in stems)

    def centrality(item: tuple[int, int, str, frozenset[str]]) -> float:
        _, _, text, stems = item
        score = sum(frequency[s] - 1 for s in stems) / math.sqrt(len(stems))
        return score * (0.6 if text.rstrip().endswith("?") else 1.0) + 0.01 * (item[0] == 0)

    parts: list[str] = []
    used_turns: list[int] = []
    budget = MAX_SUMMARY_CHARS
    for decision in decisions[:2]:
        if len(decision.text) + 1 <= budget and not _repeats_run(decision.text, parts):
            parts.append(decision.text)
            used_turns.extend(decision.turns)
            budget -= len(decision.text) + 1
    ranked = sorted(pool, key=centrality, reverse=True)
    chosen: list[tuple[int, int, str, frozenset[str]]] = []
    covered = frozenset(s for d in decisions[:2] for s in _stems(d.text))
    for item in ranked:
        if len(chosen) + len(parts) >= MAX_SUMMARY_SENTENCES:
            break
        text = item[2]
        if covered and len(item[3] & covered) >= len(item[3]) / 2:
            continue  # the decision already says it
        # A sentence without language evidence is in the session's language ("Mi fisio se llama Marta y me ve
        # cada dos semanas" is not English to rewrite).
        lang = detect_language(text, default=session_lang)
        if text.rstrip().endswith("?"):
            shown = _ASKED.get(lang, _ASKED["en"]).format(q=text.strip())
        else:
            shown = third_person(text) if lang == "en" else text
        if not shown.endswith((".", "!", "?", "…", "”", "»", "“")):
            shown += "."
        if _repeats_run(shown, [*parts, *(c[2] for c in chosen)]):
            continue  # said again in another turn, or the decision's own words: a summary never repeats itself
        if len(shown) + 1 > budget:
            if chosen or parts:
                continue
            shown = _clip(shown, budget)
        chosen.append((item[0], item[1], shown, item[3]))
        budget -= len(shown) + 1
    ordered = _without_repeats([(shown, turn_index) for _, turn_index, shown, _ in sorted(chosen)])
    if parts:  # the decisions come first; a sentence repeating their words across the join goes
        ordered = [(s, i) for s, i in ordered if not _repeats_run(s, parts)]
    for shown, turn_index in ordered:
        if _repeats_run(shown, parts):
            continue
        parts.append(shown)
        used_turns.append(turn_index)
    return " ".join(parts), tuple(sorted(set(used_turns)))


#: Verbs and fillers that recur in any session without being what it is about.
_NOT_TOPICS = word_set(
    "need needs want wants think use using make get going know like love prefer try help write work works said "
    "also really just thing things something someone today tomorrow yesterday week time please thanks doit veux "
    "besoin faire quiero necesito hacer brauche machen quero preciso fazer"
)


def extractive_topics(turns: Sequence[SourceTurn], entities: Sequence[Entity] = ()) -> tuple[str, ...]:
    """Up to five topics: names said in two or more turns, then content words said in two or more sentences."""
    counts: Counter[str] = Counter()
    surface: dict[str, str] = {}
    for turn in turns:
        for sentence in sentences(turn.user):
            if unfit_reason(sentence):
                continue
            for token in set(content_tokens(sentence)):
                if len(token) < 4 or token.isdigit() or token in _NOT_TOPICS:
                    continue
                stem = light_stem(token)
                counts[stem] += 1
                surface.setdefault(stem, token)
    names = {fold(e.name): e.name for e in entities}
    topics: list[str] = [e.name for e in entities if len(e.turns) >= 2][:2]
    for stem, count in counts.most_common():
        if count < 2 or len(topics) >= MAX_TOPICS:
            break
        word = names.get(surface[stem], surface[stem])
        if word.casefold() not in {t.casefold() for t in topics}:
            topics.append(word)
    return tuple(topics[:MAX_TOPICS])


__all__ = ["MAX_SUMMARY_CHARS", "extractive_summary", "extractive_topics", "repeats_run", "third_person"]
