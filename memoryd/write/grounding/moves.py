"""Where the user now lives and works, read from a verb of moving or of changing jobs, in five languages.

A move names the new home after its verb, with or without the old one: "I've moved to Glasgow", "je déménage de
Modane à Lanslebourg", "nos hemos mudado a Malpica", "wir sind nach Kassel gezogen", "mudei-me para Braga". A job
change is a sentence with a verb of leaving or starting a job ("I've left TfL", "changed jobs", "got the senior
radiographer post at …", "je ne suis plus moniteur…, je deviens pisteur-secouriste à Val Cenis"): the new employer is
the name after "at / for / chez / bei / na…", the new role what follows "as / je deviens / ahora soy…". A job
change's facts carry the `job` scope (grounding/stale.py) so the older role and employer go with them, whichever of
the two slots each was stored in. A hypothetical ("if I moved to Lisbon") or a hedge ("maybe we'll move to Bath")
is no move; someone else's move ("my sister moved to Leeds") is theirs.
"""

from __future__ import annotations

import re

from memoryd.write.grounding.lexicon import HEDGE, HYPOTHETICAL, NAME
from memoryd.write.grounding.model import FactKind, GroundedFact
from memoryd.write.grounding.rules import is_name
from memoryd.write.grounding.stale import JOB
from memoryd.write.grounding.templates import render

_I = re.IGNORECASE
_ART = r"(?:(?:the|la|le|l'|el|los|las|o|a|os|as|der|die|das|den|dem)\s+)?"

_MOVED_HOME = re.compile(
    rf"\b(?:(?:I|we)(?:'ve| have|'re| are)?\s+(?:just\s+|finally\s+|now\s+)?(?:moved|moving|relocated|relocating)"
    rf"(?:\s+house)?(?:\s+from\s+{NAME.replace('(?P<v>', '(?:')})?\s+to|"
    rf"(?:je déménage|j'ai déménagé|on déménage|on a déménagé|nous déménageons|nous avons déménagé|je me suis installée?|"
    rf"on s'est installés?)(?:\s+de\s+{NAME.replace('(?P<v>', '(?:')})?\s+(?:à|a|au|en|vers)|"
    rf"(?:me mudo|me he mudado|me mudé|nos mudamos|nos hemos mudado|me voy a vivir)(?:\s+de\s+"
    rf"{NAME.replace('(?P<v>', '(?:')})?\s+(?:a|al)|"
    rf"(?:ich bin|wir sind|ich ziehe|wir ziehen)\s+(?:jetzt\s+|gerade\s+)?(?:von\s+{NAME.replace('(?P<v>', '(?:')}\s+)?nach|"
    rf"(?:mudei-me|mudámo-nos|mudamo-nos|mudei|mudamos|mudámos)(?:\s+de\s+{NAME.replace('(?P<v>', '(?:')})?\s+para)"
    rf"\s+{_ART}{NAME}",
    _I,
)
#: Whose move it is: a relation or a third person as the subject ("my sister moved to Leeds").
_OTHER_SUBJECT = re.compile(
    r"\b(?:my|our|mon|ma|mi|mein|meine|meu|minha)\s+(?!partner|wife|husband|family|kids|femme|mari|famille|"
    r"esposa|marido|familia|frau|mann|familie|mulher|família)\w+\s+(?:and I\s+)?(?:has\s+|have\s+|just\s+)?"
    r"(?:moved|moving|déménage|se muda|zieht|mudou)|\b(?:he|she|they|il|elle|ils|él|ella|er|sie|ele|ela)\s+"
    r"(?:has\s+|have\s+|'s\s+)?(?:moved|moving|déménage|se mudó|zieht|mudou)",
    _I,
)


def moved_home(clause: str, turn: int, lang: str) -> GroundedFact | None:
    """The user's new home from a verb of moving ("je déménage de Modane à Lanslebourg" → Lanslebourg)."""
    if HYPOTHETICAL.search(clause) or HEDGE.search(clause) or _OTHER_SUBJECT.search(clause):
        return None
    match = _MOVED_HOME.search(clause)
    if match is None or not is_name(match.group("v")):
        return None
    place = match.group("v")
    return GroundedFact(
        FactKind.IDENTITY,
        render("home", lang, place),
        "identity.home",
        place,
        (turn,),
        0.9,
        True,
        "extractor",
        lang,
    )


#: A sentence saying the user's job changed.
_JOB_CHANGE = re.compile(
    r"\b(?:changed jobs|new job|(?:I|I've|I have) (?:just )?(?:left|quit)\b|resigned from|got (?:the|a) [\w -]{0,40}?"
    r"(?:post|job|role|position)|started (?:a|my) [\w -]{0,30}?(?:job|role|position|lectureship|fellowship|post)|"
    r"je ne suis plus|je deviens|j'ai changé de (?:travail|boulot|poste)|nouveau (?:travail|boulot|poste)|"
    r"j'ai quitté|(?:he|ha) cambiado de trabajo|cambié de trabajo|nuevo trabajo|ya no soy|(?:he|ha) dejado|dejé|"
    r"neue(?:n)? (?:Job|Stelle|Arbeit)|(?:Job|Stelle) gewechselt|gekündigt|bin nicht mehr|mudei de emprego|"
    r"novo emprego|já não sou|deixei|saí d[ao])",
    _I,
)
_EMPLOYER: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern, _I)
    for pattern in (
        rf"\b(?:work(?:ing)?|driving|teaching|nursing)\s+(?:now\s+)?(?:for|at)\s+{_ART}{NAME}",
        rf"\b(?:post|job|role|position|lectureship|fellowship)\s+(?:at|with)\s+{_ART}{NAME}",
        rf"\b(?:for|at|with)\s+(?:a|an)\s+[\w -]{{0,30}}?(?:company|firm|agency|school|hospital|practice|studio|"
        rf"startup|bank|charity)(?:\s+now)?\s*,\s*{NAME}",
        rf"\b(?:je travaille|travaille maintenant|j'ai rejoint)\s+(?:maintenant\s+)?(?:chez|pour|à)\s+{_ART}{NAME}",
        rf"\b(?:trabajo|trabajo ahora)\s+(?:ahora\s+)?(?:en|para|con)\s+{_ART}{NAME}",
        rf"\b(?:ich arbeite|arbeite jetzt)\s+(?:jetzt\s+)?(?:bei|für)\s+{_ART}{NAME}",
        rf"\b(?:trabalho|trabalho agora)\s+(?:agora\s+)?(?:na|no|para|em)\s+{_ART}{NAME}",
    )
)
_ROLE = re.compile(
    r"\b(?:now work(?:ing)? (?:for|at) [^,]+? as|as an?|je deviens|je suis maintenant|je suis désormais|ahora soy|"
    r"me he hecho|ich bin jetzt|ich werde|agora sou|passei a ser|I'm now an?|I became an?|I'm an?)\s+"
    r"(?P<r>[\w-]+(?:\s+(?!at\b|for\b|in\b|à\b|en\b|now\b|maintenant\b)[a-zà-ÿ][\w-]*)?)"
    r"(?P<at>\s+(?:à|at|in|en|em|in)\s+(?-i:[A-ZÀ-Þ][\w'-]*(?:\s+[A-ZÀ-Þ][\w'-]*)*))?",
    _I,
)
#: Words that open no role ("as a result", "as a rule", "I'm a bit tired").
_NOT_ROLE = frozenset("result rule bit little lot way whole matter favour favor".split())  # noqa: SIM905


def job_change(sentence: str, turn: int, lang: str) -> list[GroundedFact]:
    """The user's new employer and role when the sentence says their job changed; each retires the older job facts
    (the `job` scope)."""
    if _JOB_CHANGE.search(sentence) is None or HYPOTHETICAL.search(sentence) or HEDGE.search(sentence):
        return []
    if _OTHER_SUBJECT.search(sentence):
        return []
    out: list[GroundedFact] = []
    employer = next((m for p in _EMPLOYER for m in p.finditer(sentence) if is_name(m.group("v"))), None)
    if employer is not None:
        name = employer.group("v")
        out.append(
            GroundedFact(
                FactKind.IDENTITY,
                render("employer", lang, name),
                "identity.employer",
                name,
                (turn,),
                0.9,
                True,
                "extractor",
                lang,
                ((JOB, name),),
            )
        )
    role = _ROLE.search(sentence[_JOB_CHANGE.search(sentence).start() :])  # type: ignore[union-attr]
    if role is not None and role.group("r").split()[0].lower() not in _NOT_ROLE:
        value = role.group("r") + (role.group("at") or "")
        article = "" if lang != "en" else ("an " if value[:1].lower() in "aeiou" else "a ")
        out.append(
            GroundedFact(
                FactKind.IDENTITY,
                render("role", lang, article + value),
                "identity.role",
                value,
                (turn,),
                0.9,
                True,
                "extractor",
                lang,
                ((JOB, value),),
            )
        )
    return out


__all__ = ["job_change", "moved_home"]
