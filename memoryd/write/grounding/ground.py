"""Grounding: the extractor's candidates and the model's (possibly garbage) digest, merged into what may be stored.

Every model item is verified against the USER turns (facts) or all turns (the summary); what fails is dropped and
counted by reason. A model item supported only by assistant text is "assistant_only". A model fact that rephrases
an extractor candidate replaces its text when it verifies and keeps the candidate's value; the candidate's slot and
kind stay. The extractive summary stands whenever the model's fails.

Speed, measured on this machine (2 cores shared with five other agents, load average ~6): extract + ground of 40
distinct 8-turn mixed English/French sessions (~1,900 user characters each, so no cache helps): CPU time median
8 ms without a model digest and 12 ms with one (p95 12 / 17 ms); wall clock median 7 / 19 ms, worst 37 ms.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from memoryd.text import jaccard as _jaccard
from memoryd.write.grounding.entities import occurrences
from memoryd.write.grounding.extract import SALIENCE, extract
from memoryd.write.grounding.model import (
    Entity,
    Extraction,
    FactKind,
    GroundedDigest,
    GroundedFact,
    SourceTurn,
)
from memoryd.write.grounding.rules import Hit, apply_rules
from memoryd.write.grounding.secrets import contains_secret
from memoryd.write.grounding.summary import repeats_run
from memoryd.write.grounding.templates import TEMPLATE_WORDS
from memoryd.write.grounding.text import (
    STOP_WORDS,
    content_tokens,
    detect_language,
    fold,
    light_stem,
    sentences,
    tokens,
    without_speaker_labels,
)
from memoryd.write.grounding.unfit import unfit_reason
from memoryd.write.grounding.verify import support, verify
from memoryd.write.parse import Digest as ModelDigest

#: Model text that shares this much of its content stems with a candidate is a rephrasing of it.
REPHRASE_OVERLAP = 0.5
#: Near-duplicates within one session (content-stem Jaccard).
DUPLICATE_JACCARD = 0.8
MAX_PROVENANCE_TURNS = 3
#: A model summary sentence this many words long or more, found word for word in a user sentence, is an echo.
ECHO_MIN_WORDS = 4
_GROUNDING_FAILURES = frozenset({"unsupported", "ungrounded_name", "ungrounded_number", "ungrounded_date"})


def _stems(text: str) -> frozenset[str]:
    """Content stems without the words fact templates add ("decided", "user"), which every candidate shares."""
    return frozenset(light_stem(t) for t in content_tokens(text) if t not in TEMPLATE_WORDS)


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard, or the share of the smaller set found in the larger when that is high (a terse rephrasing)."""
    if not a or not b:
        return 0.0
    shared = len(a & b)
    containment = shared / min(len(a), len(b))
    return max(shared / len(a | b), containment if containment >= 0.6 and shared >= 2 else 0.0)


def _provenance(text: str, turns: Sequence[SourceTurn], *, use_assistant: bool = False) -> tuple[int, ...]:
    """The turns that support `text` best: the top turns by content-word support, at least half the best."""
    scored = []
    for turn in turns:
        source = f"{turn.user}\n{turn.assistant}" if use_assistant else turn.user
        score = support(text, source)
        if score > 0:
            scored.append((score, turn.index))
    if not scored:
        return ()
    best = max(score for score, _ in scored)
    chosen = sorted(scored, key=lambda item: (-item[0], item[1]))[:MAX_PROVENANCE_TURNS]
    return tuple(sorted(index for score, index in chosen if score >= best / 2))


def _guess_kind(text: str, default: FactKind) -> FactKind:
    """A model fact's kind from its wording when the model does not say ("prefers" → preference)."""
    found = set(tokens(text))
    if found & {"prefers", "prefer", "likes", "loves", "hates", "allergic", "vegetarian", "vegan", "favourite",
                "favorite", "dislikes", "préfère", "prefiere", "bevorzugt", "prefere"}:  # fmt: skip
        return FactKind.PREFERENCE
    if found & {"always", "never", "toujours", "jamais", "siempre", "nunca", "immer", "nie", "sempre"}:
        return FactKind.INSTRUCTION
    if found & {"decided", "chose", "décidé", "decidió", "entschieden", "decidiu"}:
        return FactKind.DECISION
    return default


#: Verdicts about how a fact is worded rather than what it says (names, dates, numbers, secrets stay checked).
_WORDING_FAILURES = frozenset({"unsupported", "too_short"})


def _value_said(value: str, evidence: Sequence[str]) -> bool:
    """Every token of an extractor fact's value occurs in the sentences it was read from."""
    wanted = tokens(value)
    said = {t for sentence in evidence for t in tokens(sentence)}
    return bool(wanted) and set(wanted) <= said


class _Grounder:
    def __init__(
        self,
        turns: Sequence[SourceTurn],
        extraction: Extraction,
        scaffolding: Sequence[str],
        earlier: Sequence[str],
    ) -> None:
        self.turns = turns
        self.extraction = extraction
        self.scaffolding = tuple(scaffolding)
        self.earlier = tuple(earlier)
        self.user_sources = tuple(t.user for t in turns if t.user)
        self.all_sources = tuple(s for t in turns for s in (t.user, t.assistant) if s)
        self.dropped: Counter[str] = Counter()
        self.facts: list[GroundedFact] = []
        self.turns_by_index = {t.index: t for t in turns}
        self.evidence: list[tuple[str, ...]] = []  # parallel to self.facts: the sentences each was read from
        #: The user's own names, folded ("Alice", "Ali"): a summary calling the user by name speaks of the user.
        self.own_names = frozenset(
            fold(word)
            for f in extraction.facts
            if f.slot in ("identity.name", "identity.address_as")
            for word in f.value.split()
        )

    def _check(self, text: str, sources: Sequence[str]) -> str:
        verdict = verify(
            text,
            sources,
            scaffolding=self.scaffolding,
            earlier=self.earlier,
            allowed_dates=self.extraction.resolved_dates,
        )
        return verdict.reason

    def add_extracted(self) -> None:
        for fact, evidence in zip(self.extraction.facts, self.extraction.evidence, strict=True):
            reason = self._check(fact.text, evidence)
            if reason in _WORDING_FAILURES and _value_said(fact.value, evidence):
                # The template's own verb ("El usuario vive en …" for "Vivo en …") or a bare value ("I'm 34") is
                # wording, not content: an extractor fact whose value the user said word for word is grounded.
                reason = ""
            if reason:
                self.dropped[reason] += 1
            else:
                self.facts.append(fact)
                self.evidence.append(evidence)

    def add_model_item(self, text: str, kind: FactKind, salience: float, *, is_identity: bool) -> None:
        text = " ".join(text.split())
        if not text:
            return
        stems = _stems(text)
        match = max(
            (f for f in self.facts if f.source == "extractor" or f.kind is kind),
            key=lambda f: _overlap(stems, _stems(f.text)),
            default=None,
        )
        if match is not None and _overlap(stems, _stems(match.text)) < REPHRASE_OVERLAP:
            match = None
        # A rephrasing may lean on its candidate's evidence: a guess the user confirmed ("Are you vegan?" "Yes").
        evidence = self.evidence[self.facts.index(match)] if match is not None else ()
        reason = self._check(text, (*self.user_sources, *evidence))
        if reason in _GROUNDING_FAILURES and not self._check(text, self.all_sources):
            reason = "assistant_only"
        if reason:
            self.dropped[reason] += 1
            return
        if match is not None:
            if _polarity_differs(match.text, text):
                self.dropped["contradicts_user"] += 1
            else:
                self._merge(match, text)
            return
        turns = _provenance(text, self.turns)
        if not turns:
            self.dropped["unsupported"] += 1
            return
        unfit = self._unfit_source(text)
        if unfit:
            self.dropped[unfit] += (
                1  # what the extractor would not read ("it's pouring here") the model may not state
            )
            return
        if kind is not FactKind.DECISION and _about_someone_else(
            text, [self.turns_by_index[i].user for i in turns]
        ):
            self.dropped["third_party"] += 1
            return
        if kind is FactKind.DECISION and self._conflicts_with_decisions(text):
            self.dropped["conflicting_decision"] += 1
            return
        slot, value = "", ""
        read = _read_model_fact(text)
        if read is not None:
            latest = self._latest_value(read.slot)
            if latest is not None and fold(latest) != fold(read.value):
                self.dropped["stale_or_conflicting"] += 1  # the user's own latest words in this slot win
                return
            slot, value = read.slot, read.value
            kind, is_identity = read.kind, read.is_identity or is_identity
        elif kind is not FactKind.IDENTITY:
            kind = _guess_kind(text, kind)
        self.facts.append(
            GroundedFact(
                kind,
                text,
                slot,
                value,
                turns,
                min(max(salience, 0.0), 1.0),
                is_identity,
                "model",
                detect_language(text),
            )
        )
        self.evidence.append(())

    def _latest_value(self, slot: str) -> str | None:
        """The value the user gave last for a slot in this session (facts are in turn order)."""
        values = [f.value for f in self.facts if f.slot == slot and f.source == "extractor"]
        return values[-1] if values else None

    def _conflicts_with_decisions(self, text: str) -> bool:
        """A model decision naming something the user's own decisions do not (it chose the rejected option)."""
        decided = [f for f in self.facts if f.kind is FactKind.DECISION and f.source == "extractor"]
        if not decided:
            return False
        values = " ".join(fold(f.value) for f in decided)
        folded = f" {' '.join(tokens(text))} "
        named = [fold(e.name) for e in self.extraction.entities if f" {' '.join(tokens(e.name))} " in folded]
        return any(name not in values for name in named)

    def _merge(self, fact: GroundedFact, text: str) -> None:
        """A model rephrasing of a candidate: its text wins only if it keeps the candidate's value."""
        index = self.facts.index(fact)
        keeps_value = not fact.value or fold(fact.value) in fold(text)
        # The candidate's own turns stay its provenance: the model's wording is checked, not its sourcing.
        same = fold(text).rstrip(".") == fold(fact.text).rstrip(".")
        # The resolved dates are the extractor's work; a rephrasing that drops them loses information.
        keeps_value = keeps_value and all(iso in text for iso in _ISO_IN_TEXT.findall(fact.text))
        if keeps_value and not same and fact.source == "extractor":
            self.facts[index] = replace(fact, text=text, source="model")

    def deduplicated(self) -> list[GroundedFact]:
        kept: list[GroundedFact] = []
        for fact in self.facts:
            stems = _stems(fact.text)
            twin = next((k for k in kept if _jaccard(stems, _stems(k.text)) >= DUPLICATE_JACCARD), None)
            if twin is None:
                kept.append(fact)
            else:
                kept[kept.index(twin)] = replace(twin, turns=tuple(sorted(set(twin.turns) | set(fact.turns))))
        return kept

    def summary(self, digest: ModelDigest | None) -> tuple[str, tuple[int, ...], str]:
        """The model's summary if it verifies; else its verified sentences when most of them do; else extractive."""
        if digest is not None and digest.summary.strip():
            text = _redact_summary(digest.summary.strip())
            reason = self._summary_reason(text)
            if not reason:
                return text, _provenance(text, self.turns, use_assistant=True), "model"
            parts = sentences(text)
            reasons = [self._summary_reason(part) for part in parts]
            kept: list[str] = []
            for n, part in enumerate(parts):
                if not reasons[n] and repeats_run(" ".join([*kept, part])):
                    reasons[n] = "loop"  # fine alone, but it says again what an earlier sentence said
                if not reasons[n]:
                    kept.append(part)
            if len(parts) > 1 and len(kept) * 2 > len(parts):
                for why in reasons:
                    if why:
                        self.dropped[f"summary_sentence_{why}"] += 1
                salvaged = " ".join(kept)
                return salvaged, _provenance(salvaged, self.turns, use_assistant=True), "model"
            self.dropped[f"summary_{reason}"] += 1
        return self._extractive_summary(), self.extraction.summary_turns, "extractive"

    def _extractive_summary(self) -> str:
        """The extractive summary without the sentences an earlier episode's summary already says (a decision
        restated in a later session): a new episode says what is new. When every sentence was said before, the
        summary stays whole: the session happened and its episode is stored."""
        if not self.earlier:
            return self.extraction.summary
        earlier = [set(_runs(summary)) for summary in self.earlier]
        parts = sentences(self.extraction.summary)
        kept = [part for part in parts if not any(set(_runs(part)) & seen for seen in earlier)]
        if not kept:
            return self.extraction.summary
        self.dropped["summary_sentence_said_before"] += len(parts) - len(kept)
        return " ".join(kept)

    def _summary_reason(self, text: str) -> str:
        if not text:
            return "empty"
        reason = self._check(text, self.all_sources)
        if reason:
            return reason
        if repeats_run(text):
            return "loop"  # a 4-word run said twice, even of template words ("the user is a … the user is a")
        own = self.own_names
        unfit = next(
            (why for why in (unfit_reason(s, own) for s in sentences(text)) if why and why != "secret"), ""
        )
        if unfit:
            return unfit  # small talk, someone else's opinion, the assistant's guess: the extractive filters
        unfit = next((why for why in map(self._unfit_source, sentences(text)) if why), "")
        if unfit:
            return unfit  # "El cierzo no para!" restates small talk the user said with more words
        if any(self._unstated_echo(part) for part in sentences(text)):
            return (
                "unstated_echo"  # the user's chat said back word for word, where the session stated nothing
            )
        # A summary says "the user"; a model speaking as "I" is continuing the chat, not summarising it.
        if _FIRST_PERSON.search(text):
            return "first_person"
        if not _provenance(text, self.turns, use_assistant=True):
            return "unsupported"
        return ""

    def _unstated_echo(self, sentence: str) -> bool:
        """A model summary sentence that copies the user's words (ECHO_MIN_WORDS or more, in a row) from a sentence
        the extractor read no fact from, in a session where it read some: the model is saying the chat back ("¡Volví
        de Buenos Aires! Salimos cuartos en el festival, re contenta."), not summarising what the session
        established. The extractive summary takes only sentences holding a fact's clause in such a session; a
        model's candidates pass the same check."""
        said = tokens(sentence)
        read = [fold(clause).strip(" .!?") for clauses in self.extraction.evidence for clause in clauses]
        if len(said) < ECHO_MIN_WORDS or not any(read):
            return False
        run = f" {' '.join(said)} "
        for turn in self.turns:
            for source in sentences(turn.user):
                if run in f" {' '.join(tokens(source))} ":
                    return not any(clause and clause in fold(source) for clause in read)
        return False

    def _unfit_source(self, text: str) -> str:
        """Why the user sentence a model sentence restates may not feed memory (small talk, a hypothetical,
        someone else's opinion, a guess the user denied), or "": the model's candidates pass the extractor's
        checks on what they came from, not only on their own words ("El cierzo no para!" is the small talk
        "¡Qué viento hace hoy, el cierzo no para!" shortened)."""
        stems = _stems(text)
        if not stems:
            return ""
        scored = [
            (_overlap(stems, _stems(said)), said)
            for turn in self.turns
            for said in sentences(turn.user)
            if said.strip()
        ]
        best = max((score for score, _ in scored), default=0.0)
        if best < REPHRASE_OVERLAP:
            return ""
        reasons = {unfit_reason(said, self.own_names) for score, said in scored if score == best}
        reasons.discard("secret")  # a secret is redacted, not a reason to drop what else the sentence says
        return sorted(reasons)[0] if reasons and "" not in reasons else ""

    def topics(self, digest: ModelDigest | None) -> tuple[str, ...]:
        if digest is None:
            return self.extraction.topics
        kept = []
        for topic in digest.topics:
            found = content_tokens(topic)
            if found and all(
                not self._check(t, self.all_sources) or _word_in(t, self.all_sources) for t in found
            ):
                kept.append(topic)
            else:
                self.dropped["topic_unsupported"] += 1
        return tuple(kept) or self.extraction.topics

    def entities(self, digest: ModelDigest | None) -> tuple[Entity, ...]:
        result = {e.name.casefold(): e for e in self.extraction.entities}
        for name in digest.entities if digest is not None else ():
            if name.casefold() in result:
                continue
            where = occurrences(name, self.turns)
            if where and not contains_secret(name):
                result[name.casefold()] = Entity(name, where)
            else:
                self.dropped["entity_unsupported"] += 1
        return tuple(result.values())


_THIRD_PERSON = (
    (re.compile(r"^(?:the )?user's\b", re.IGNORECASE), "my"),
    (re.compile(r"^(?:the )?user (?:is|was)\b", re.IGNORECASE), "I am"),
    (re.compile(r"^(?:the )?user has\b", re.IGNORECASE), "I have"),
    (re.compile(r"^(?:the )?user (\w+?)(?:ies)\b", re.IGNORECASE), r"I \1y"),
    (re.compile(r"^(?:the )?user (\w+?)s\b", re.IGNORECASE), r"I \1"),
)


#: A run this many words long said again repeats an earlier summary (the bench's and verify.py's span).
_REPEAT_RUN = 6


def _runs(text: str) -> list[tuple[str, ...]]:
    found = tokens(text)
    return [tuple(found[i : i + _REPEAT_RUN]) for i in range(len(found) - _REPEAT_RUN + 1)]


def _read_model_fact(text: str) -> Hit | None:
    """The slot of an English model fact, read by the extractor's own rules once put back in the first person
    ("The user lives in Porto" → "I live in Porto" → identity.home = Porto)."""
    first_person = text.strip()
    for pattern, replacement in _THIRD_PERSON:
        changed = pattern.sub(replacement, first_person, count=1)
        if changed != first_person:
            first_person = changed
            break
    else:
        return None
    hits = [hit for hit in apply_rules(first_person, frozenset({"en"})) if hit.slot]
    return hits[0] if len(hits) == 1 else None


_ISO_IN_TEXT = re.compile(r"\b\d{4}-\d{2}(?:-\d{2})?\b")
_FIRST_PERSON = re.compile(
    r"(?<![\w'’])(?:I|I'm|I’m|I've|I'll|I'd|me|my|mine|myself|je|j'|moi|yo|ich|mich|mir|eu)(?![\w'’])"
)
#: Tags a model may put on a candidate that mark it as a fact about the user themself.
IDENTITY_TAGS = frozenset({"identity", "personal", "profile", "bio", "biography", "name", "occupation"})
_CLAUSE = re.compile(
    r"[,;:]\s*|\s+(?:but|and|while|whereas|mais|et|alors que|pero|y|mientras|aber|und|während|mas|e|enquanto)\s+",
    re.IGNORECASE,
)
_THIRD_PARTY_SUBJECT = re.compile(
    r"^(?:(?:my|our|his|her|their|mon|ma|mes|notre|son|sa|mi|mis|nuestro|nuestra|su|mein|meine|unser|unsere|sein|"
    r"seine|ihr|ihre|meu|minha|nosso|nossa|seu|sua)\s+(?P<who>[\w-]+)|(?P<pronoun>he|she|they|il|elle|ils|elles|él|"
    r"ella|ellos|ellas|er|sie|ele|ela|eles|elas)\b|(?-i:(?P<name>[A-ZÀ-Þ][\w-]+))\s+(?-i:[a-zà-ÿ]))",
    re.IGNORECASE,
)


def _about_someone_else(text: str, sources: Sequence[str]) -> bool:
    """The words a model fact leans on were said about another person ("my wife loves sushi" → "the user loves
    sushi"); a fact that names that person or relation ("the user's wife …") is about them and passes."""
    best_clause, best = "", 0.0
    for source in sources:
        for sentence in sentences(source):
            for clause in _CLAUSE.split(sentence):
                score = support(text, clause)
                if score > best:
                    best_clause, best = clause.strip(), score
    match = _THIRD_PARTY_SUBJECT.match(best_clause)
    if match is None:
        return False
    who = match.group("who") or match.group("name") or ""
    if match.group("pronoun") is None and (fold(who) in STOP_WORDS or fold(who) in {"i", "name"}):
        return False
    return not who or fold(who) not in tokens(text)


def _word_in(word: str, sources: Sequence[str]) -> bool:
    folded = fold(word)
    return any(folded in tokens(source) for source in sources)


_NEGATION_TOKENS = frozenset(
    "not no never nt doesnt dont cant ne pas jamais nunca nicht kein keine nie nao nem".split()  # noqa: SIM905
)
#: Verbs of dislike in the five languages: "hates" and "loves" say opposite things about the same object.
_NEGATIVE_VERBS = frozenset(
    [
        "hate",
        "hates",
        "hated",
        "dislike",
        "dislikes",
        "detest",
        "detests",
        "loathe",
        "loathes",
        "déteste",
        "détestent",
        "odia",
        "odio",
        "odeia",
        "odeio",
        "hasst",
        "hasse",
    ]
)


def _is_negative(text: str) -> bool:
    found = set(tokens(text.replace("n't", " not").replace("n’t", " not")))
    return bool(found & _NEGATION_TOKENS) != bool(found & _NEGATIVE_VERBS)


def _polarity_differs(a: str, b: str) -> bool:
    """One says the fact and the other its opposite ("hates" / "loves", "is not" / "is")."""
    return _is_negative(a) != _is_negative(b)


def _redact_summary(summary: str) -> str:
    """Secrets out of a summary: every sentence holding one is dropped."""
    if not contains_secret(summary):
        return summary
    # A sentence that held a credential is about it ("the rota password is …"): it goes whole, as in the
    # extractive summary.
    return " ".join(sentence for sentence in sentences(summary) if not contains_secret(sentence))


def ground(
    turns: Sequence[SourceTurn],
    digest: ModelDigest | None,
    *,
    session_time_ms: int,
    scaffolding: Sequence[str] = (),
    earlier: Sequence[str] = (),
) -> GroundedDigest:
    """The verified digest of a session: extractor facts ∪ model items that pass verification, with provenance."""
    users, assistants = without_speaker_labels([t.user for t in turns], [t.assistant for t in turns])
    turns = [replace(t, user=u, assistant=a) for t, u, a in zip(turns, users, assistants, strict=True)]
    extraction = extract(turns, session_time_ms=session_time_ms)
    grounder = _Grounder(turns, extraction, scaffolding, earlier)
    grounder.add_extracted()
    if digest is not None:
        for fact_text in digest.identity_facts:
            grounder.add_model_item(
                fact_text, FactKind.IDENTITY, SALIENCE[FactKind.IDENTITY], is_identity=True
            )
        for candidate in digest.candidates:
            is_identity = bool({tag.casefold() for tag in candidate.tags} & IDENTITY_TAGS)
            kind = FactKind.IDENTITY if is_identity else FactKind.PREFERENCE
            grounder.add_model_item(candidate.content, kind, candidate.salience, is_identity=is_identity)
        for decision in digest.decisions:
            grounder.add_model_item(
                decision, FactKind.DECISION, SALIENCE[FactKind.DECISION], is_identity=False
            )
        for item in digest.action_items:
            grounder.add_model_item(
                item, FactKind.ACTION_ITEM, SALIENCE[FactKind.ACTION_ITEM], is_identity=False
            )
    facts = tuple(sorted(grounder.deduplicated(), key=lambda f: (f.turns[0], list(FactKind).index(f.kind))))
    summary, summary_turns, summary_source = grounder.summary(digest)
    topics = grounder.topics(digest)
    entities = grounder.entities(digest)
    if summary_source == "model" and digest is not None:
        salience = digest.salience
    else:
        salience = min(0.9, 0.3 + 0.1 * len(facts)) if facts else 0.3
    return GroundedDigest(
        summary=summary,
        summary_turns=summary_turns,
        summary_source=summary_source,
        topics=topics,
        entities=entities,
        facts=facts,
        decisions=tuple(f for f in facts if f.kind is FactKind.DECISION),
        action_items=tuple(f for f in facts if f.kind is FactKind.ACTION_ITEM),
        dropped=dict(grounder.dropped),
        salience=salience,
    )


__all__ = ["ModelDigest", "ground"]
