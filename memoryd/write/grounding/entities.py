"""Names said in the session: capitalised words and tool names (PostgreSQL, iOS), with the turns they occur in.

A name the user says only to deny the assistant's guess ("You're a Glasgow lad originally, I'd guess?" — "Never lived
in Glasgow in my life"; "Jamais habité à Lyon", "Nunca he vivido en Madrid", "Nie in Köln gewohnt", "Nunca morei em
Lisboa") is the assistant's word, not a name of the user's session: a name of the assistant's turn just before that
follows a negation in its own clause names nothing ("I live in Glasgow, not Edinburgh" still names Glasgow).

Capitalised words that are no names (`_is_plain_word`), five languages: greetings and thanks ("Guten Tag",
"Buenos días"), languages ("auf Deutsch"), currencies ("in Euro"), the acronyms of money forms and taxes ("IBAN",
"PIN", "VAT", "TVA", "IVA", "MwSt"), weekdays and months said in the plural ("on Saturdays", "los sábados"); a
single capitalised word after a German indefinite or negative article ("ein Café", "kein Café") is a common noun;
a request opening its sentence before "please"/"bitte"/"por favor" ("Nenn Preise bitte …", "Ask Marta please")
starts with a verb, no name.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence

from memoryd.write.grounding.dates import MONTHS, WEEKDAYS
from memoryd.write.grounding.fitness import speaks_of_user
from memoryd.write.grounding.lexicon import ASSISTANT_SAID, CHIT_CHAT, HYPOTHETICAL, LEAD_FILLER
from memoryd.write.grounding.model import Entity, SourceTurn
from memoryd.write.grounding.secrets import asks_for_credential, contains_secret, redact_secrets
from memoryd.write.grounding.templates import TEMPLATE_WORDS
from memoryd.write.grounding.text import STOP_WORDS, detect_language, fold, sentences
from memoryd.write.grounding.unfit import digressions, unfit_reason

MAX_ENTITIES = 20
#: A negation, five languages: the sentence denies what it names.
_NEGATION = re.compile(
    r"\b(?:never|not|no|nope|n't|jamais|pas|non|nunca|nada|nie|nicht|kein|keine|nein|não|nao)\b|n't\b",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[^\W_][\w'’+#.-]*[\w+#]|[^\W_]")
_CONNECTORS = frozenset(
    ["de", "da", "do", "dos", "das", "del", "van", "von", "der", "den", "la", "le", "di", "du"]
)
#: Capitalised words that are not names: greetings, interjections and all-caps filler.
_NOT_ENTITIES = frozenset(
    [
        "ok",
        "okay",
        "hi",
        "hey",
        "hello",
        "thanks",
        "yes",
        "no",
        "yeah",
        "nope",
        "sure",
        "please",
        "lol",
        "btw",
        "fyi",
        "asap",
        "am",
        "pm",
        "tv",
    ]
)


#: Capitalised words that name no one and nothing of the session, five languages: greetings and thanks ("Guten
#: Tag", "Buenos días"), the names of languages ("antworte auf Deutsch"), currencies ("in Euro netto") and the
#: acronyms of money forms and taxes ("Mon IBAN", "VAT shown separately", "bank PIN", "TVA", "IVA", "MwSt").
_GENERIC_WORDS = frozenset(
    fold(w)
    for w in (  # noqa: SIM905
        "morning afternoon evening cheers bonjour bonsoir salut merci buenos buenas días tardes noches gracias "
        "hallo guten tag morgen abend danke servus moin grüß olá oi dia tarde noite obrigado obrigada "
        "english french spanish german portuguese italian français anglais espagnol allemand portugais italien "
        "inglés francés español alemán portugués italiano englisch französisch spanisch deutsch portugiesisch "
        "italienisch inglês francês espanhol alemão português "
        "euro euros pound pounds sterling dollar dollars francs "
        "eur gbp usd chf vat tva iva mwst ust iban bic pin"
    ).split()
)
#: German articles: a capitalised word right after one is a common noun ("ein Café", "kein Café"), not a name.
_GERMAN_ARTICLE = frozenset("ein eine einen einem einer eines kein keine keinen keinem keiner".split())  # noqa: SIM905
#: A politeness word right after a run that opens the sentence: the run is a request ("Nenn Preise bitte …",
#: "Send Invoices please"), a verb and its object, not a name.
_POLITE = frozenset(fold(w) for w in "please bitte s'il plaît por favor favour pf".split())  # noqa: SIM905


def _is_calendar_plural(folded: str) -> bool:
    """ "Saturdays", "Fridays", "samedis", "sábados", "sextas": a weekday said as a habit names no entity."""
    return folded.endswith("s") and (folded[:-1] in WEEKDAYS or folded[:-1] in MONTHS)


def _is_capitalised(token: str) -> bool:
    return token[:1].isupper() or any(ch.isupper() for ch in token[1:])


def _is_marked(token: str) -> bool:
    """Internal capital or digit ("iOS", "PostgreSQL", "GPT-4"): a name wherever it stands."""
    return any(ch.isupper() for ch in token[1:]) or (
        any(ch.isdigit() for ch in token) and token[:1].isalpha()
    )


def _is_plain_word(token: str) -> bool:
    folded = re.split(r"['’]", fold(token))[0]
    return (
        folded in STOP_WORDS
        or folded in _NOT_ENTITIES
        or folded in MONTHS
        or folded in WEEKDAYS
        or folded in TEMPLATE_WORDS
        or folded in _GENERIC_WORDS
        or _is_calendar_plural(folded)
        or (token.isupper() and len(token) <= 2)
    )


def _candidates(sentence: str) -> list[tuple[str, bool]]:
    """Capitalised runs of a sentence as (name, starts the sentence)."""
    found: list[tuple[str, bool]] = []
    run: list[str] = []
    run_start = False
    run_at = 0
    matches = list(_TOKEN.finditer(sentence))

    def flush(position: int) -> None:
        nonlocal run_start
        after = fold(matches[position].group()) if position < len(matches) else ""
        before = fold(matches[run_at - 1].group()) if run_at > 0 else ""
        if run and run_start and after in _POLITE:
            # "Nenn Preise bitte immer in Euro", "Ask Marta please": a request opening the sentence, its verb no
            # name; after "bitte" (German) a word with a common noun's ending is no name either.
            run.pop(0)
            run_start = False
            if after == "bitte" and len(run) == 1 and _GERMAN_NOUN_ENDING.search(run[0].lower()):
                run.clear()
        while run and (run[-1].lower() in _CONNECTORS or _is_plain_word(run[-1])):
            run.pop()
        if len(run) == 1 and before in _GERMAN_ARTICLE and not _is_marked(run[0]):
            run.clear()  # "kein Café": a German common noun
        while run and _is_plain_word(run[0]):
            run.pop(0)
            run_start = False  # the name does not open the sentence: a word was stripped before it
        if run:
            found.append((" ".join(run), run_start and len(run) == 1))
        run.clear()

    for position, match in enumerate(matches):
        token = match.group().rstrip(".").removesuffix("'s").removesuffix("’s")
        if token and _is_capitalised(token):
            if not run:
                run_start = position == 0
                run_at = position
            run.append(token)
        elif run and token.lower() in _CONNECTORS and position + 1 < len(matches):
            run.append(token)
        else:
            flush(position)
    flush(len(matches))
    return found


_GERMAN_PREPOSITION = re.compile(r"\b(?:in|nach|aus|bei|mit|von|für|über|gegen|an|auf|zu)\s+$", re.IGNORECASE)
#: Endings of German common nouns; a capitalised word after a preposition without one reads as a name.
_GERMAN_NOUN_ENDING = re.compile(
    r"(?:ung|heit|keit|schaft|ion|tät|chen|lein|ismus|nis|tum|e|en|er|el|ern|ten|ei|ik|ur|ät)$"
)


def _german_proper(name: str, sentence: str) -> bool:
    """In German every noun is capitalised: "mit Kubernetes", "in Leipzig" name something, "mit Freunden" does not."""
    if " " in name or _GERMAN_NOUN_ENDING.search(name.lower()):
        return False
    position = sentence.find(name)
    return position > 0 and bool(_GERMAN_PREPOSITION.search(sentence[:position]))


#: A single token mixing lower case, capitals and digits at password length ("Bookies4Nan", "Moustache2019x"), or
#: a long run of hex digits: a credential's shape, never a name.
_CREDENTIAL_SHAPE = re.compile(r"(?=\S*[a-z])(?=\S*[A-Z])(?=\S*\d)[A-Za-z0-9!@#$%^&*_]{8,}|[0-9A-Fa-f]{16,}")


def _denied(name: str, said: str, guess: str) -> bool:
    """`name`, said by the assistant just before, follows a negation in its own clause of `said` (at most six words
    after it, no comma between): "Never lived in Glasgow", "not Postgres"; not "Glasgow, not Edinburgh"."""
    if not re.search(rf"(?<![\w-]){re.escape(fold(name))}(?![\w-])", guess):
        return False
    at = said.find(name)
    if at < 0:
        return False
    clause = re.split(r"[,;:.!?]", said[:at])[-1]
    negations = list(_NEGATION.finditer(clause))
    return bool(negations) and len(clause[negations[-1].end() :].split()) <= 6


def find_entities(
    turns: Sequence[SourceTurn], known_names: Iterable[str] = (), evidence: Iterable[str] = ()
) -> tuple[Entity, ...]:
    """Entities of the user's turns in order of first mention; German nouns (all capitalised) need a stronger sign.

    A name counts when a fact names it (`known_names`), when it is said in two turns, or when a sentence naming it
    speaks of the user or holds a clause a fact was read from (`evidence`): a club, a match or a festival named once
    in passing is no entity of the session."""
    known = {fold(name) for name in known_names}
    read = [fold(clause).strip(" .!?") for clause in evidence if clause.strip()]
    grounded: set[str] = set()
    seen_mid: set[str] = set()
    proposals: list[tuple[str, bool, bool]] = []
    asked = {t.index for before, t in itertools.pairwise(turns) if asks_for_credential(before.assistant)}
    guessed = {after.index: fold(before.assistant) for before, after in itertools.pairwise(turns)}
    for turn in turns:
        if turn.index in asked:
            continue  # "— What's the wifi password? — Moustache2019": the reply is the credential, not a name
        guess = guessed.get(turn.index, "")
        said_all = sentences(turn.user)
        aside = digressions(said_all)
        for position, said in enumerate(said_all):
            if position in aside:
                continue  # "Viu o clássico ontem? O Galo perdeu de novo": the match, not the user's matter
            if HYPOTHETICAL.search(said):
                continue  # "if I lived in Alfama": a place only imagined is not one the user deals with
            if CHIT_CHAT.search(LEAD_FILLER.sub("", said).strip()):
                continue  # "Schönes Wetter heute!": small talk names nothing the session is about
            if ASSISTANT_SAID.search(said):
                continue  # "you suggested a PhD, but no": what the assistant said, answered, is not the user's
            if unfit_reason(said) in ("third_party", "small_talk", "assistant_guess", "hypothetical"):
                continue  # "my wife reckons we should sell on Etsy": her idea names nothing the user deals with
            # A password or account number is never a name, even when it is capitalised ("Moustache2019", "PT50").
            sentence = redact_secrets(said) if contains_secret(said) else said
            is_german = detect_language(sentence) == "de"
            about_user = speaks_of_user(said) or any(c and c in fold(said) for c in read)
            for name, at_start in _candidates(sentence):
                if _CREDENTIAL_SHAPE.fullmatch(name):
                    continue
                if guess and _denied(name, said, guess):
                    continue  # "Never lived in Glasgow in my life": the assistant's guess, denied
                if about_user:
                    grounded.add(name)
                if not at_start and not is_german:
                    seen_mid.add(name)
                if is_german and _german_proper(name, sentence):
                    known.add(fold(name))
                proposals.append((name, at_start, is_german))
    chosen: dict[str, None] = {}
    for name, at_start, is_german in proposals:
        single = " " not in name
        strong = _is_marked(name) or fold(name) in known or (not single and not is_german)
        if (
            strong
            or (not is_german and (not at_start or name in seen_mid))
            or (is_german and name in seen_mid)
        ):
            chosen.setdefault(name, None)
    result: list[Entity] = []
    for name in chosen:
        pattern = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
        where = tuple(t.index for t in turns if pattern.search(t.user))
        if where and (name in grounded or fold(name) in known or len(where) > 1):
            result.append(Entity(name, where))
    return tuple(result[:MAX_ENTITIES])


def occurrences(name: str, turns: Sequence[SourceTurn]) -> tuple[int, ...]:
    """Turns whose user or assistant text holds `name` as a whole word (case-insensitive)."""
    pattern = re.compile(rf"(?<![\w-]){re.escape(fold(name))}(?![\w-])")
    return tuple(t.index for t in turns if pattern.search(fold(t.user)) or pattern.search(fold(t.assistant)))


__all__ = ["MAX_ENTITIES", "find_entities", "occurrences"]
