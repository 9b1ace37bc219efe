"""The user's own taste said against someone else's: "Reginald likes to bid aggressively. I prefer a sound, cautious
game.", "O Rui acha que eu devia fazer turnos de 12 horas; eu prefiro os de 8.", "Er mag am liebsten Waldhonig,
ich finde Rapshonig viel besser."

Rule: in one user turn, after a clause in which another person (a name, "my X", "he/she/il/él/er/ele…") states a
view or a liking ("likes", "wants", "thinks", "adore", "trouve", "quiere", "dice", "mag", "findet", "acha", "quer"…),
a later part of the same turn that opens with the user's own stance is the user's preference:

- en: "I prefer …", "I'd rather …", "I want …", "I like/love …", "I'm strict about …";
- fr: "moi, je …" / "moi j'…" (the stressed pronoun sets the user against the other person);
- es: "yo …" (an explicit subject in a pro-drop language is the contrast), "a mí me gusta …";
- de: "ich finde/mag/bevorzuge/will/möchte/bleibe …";
- pt: "eu …" / "já eu …".

Only the user's part is stored, so the other person's view never becomes the user's. Not read: a turn without
another person's view ("I prefer tea" is the clause rules' matter), a part that is a question or a hypothetical,
a bare disagreement ("I don't.", "Moi non."), a wish addressed to the assistant ("I want you to …"), a stance that
agrees with the other person ("I agree", "moi aussi", "yo también", "ich auch", "eu também"), an idiom or a refusal
("I'd rather die lol", "I'd rather not …"), an opinion of the other person's thing ("moi je trouve ça illisible"),
a doubt alone ("moi je suis pas sûre", "I'm not sure", "ich bin mir nicht sicher", "eu não tenho a certeza").

An elided noun is restored from the other person's clause: "… turnos de 12 horas; eu prefiro os de 8" → "os turnos
de 8 horas".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryd.write.grounding.lexicon import HYPOTHETICAL
from memoryd.write.grounding.model import FactKind, GroundedFact, SourceTurn
from memoryd.write.grounding.summary import third_person

_I = re.IGNORECASE
#: Salience of a preference (grounding/extract.py SALIENCE): kept in step by a test.
PREFERENCE_SALIENCE = 0.75

_OTHER = (
    r"(?:\b(?:my|our|his|her|mon|ma|mes|notre|mi|mis|nuestro|nuestra|mein|meine|meinem|unser|unsere|o meu|a minha|"
    r"meu|minha)\s+[\w-]+(?:\s+(?-i:[A-ZÀ-ÖØ-Þ][\w-]+))?"
    r"|\b(?:one of (?:the|my|our) [\w-]+)"
    r"|\b(?:he|she|they|il|elle|lui,?\s*il|elle,?\s*elle|él|ella|er|sie|ele|ela)"
    r"|(?-i:\b[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ]+))"
)
_VIEW = (
    r"(?:likes|loves|wants|prefers|hates|thinks|reckons|says|believes|swears by|keeps pushing|is mad about|"
    r"is obsessed with|would keep|"
    r"adore|aime|veut|préfère|trouve|pense|dit|croit|ne jure que par|jure par|"
    r"quiere|prefiere|dice|cree|piensa|adora|le gusta|le encanta|opina|"
    r"mag|will|findet|sagt|meint|glaubt|liebt|bevorzugt|schwört auf|"
    r"quer|prefere|acha|diz|pensa|gosta|adora|é apaixonad[oa])"
)
_OTHERS_VIEW = re.compile(rf"{_OTHER}\s+(?:\w+\s+)?{_VIEW}\b", _I)
_NOT_OTHER = re.compile(
    r"^(?:I|we|you|je|j'|nous|on|tu|vous|yo|tú|usted|ich|wir|du|eu|nós|você|it|this|that|there|what|who)$", _I
)

#: The user's stance opening a part, per language: (pattern, English lead or "" for the verbatim part).
_STANCE = re.compile(
    r"^(?:(?:but|though|and|personally|mais|et|pero|y|aber|und|mas|e|já)[,\s]+)?"
    r"(?P<s>"
    r"I(?:'d| would)\s+(?:much\s+)?rather\b.+|I\s+(?:much\s+|really\s+|still\s+)?prefer\b.+|"
    r"I\s+want\s+(?!you\b|to know\b).+|I(?:'m| am)\s+(?!not\b).+,?\s+though|I\s+(?:really\s+)?(?:like|love)\s+.+|I'm\s+(?:strict|firm)\s+about\b.+|"
    r"moi,?\s+(?:je\s+|j')(?!.*\baussi\b).+|"
    r"yo\s+(?!también\b|tambien\b|no\b).+|a\s+mí\s+me\s+(?:gusta|gustan|encanta|encantan)\b.+|"
    r"ich\s+(?:finde|mag|bevorzuge|ziehe|will|möchte|bleibe)\b(?!\s+auch\b).+|"
    r"eu\s+(?!também\b|tambem\b|não\b|nao\b).+"
    r")$",
    _I,
)
#: Parts of a turn: sentences, ";" halves, and a ", I …" / ", moi je …" clause after a comma.
_PARTS = re.compile(
    r"(?<=[.!?])\s+|\s*;\s*|,\s+(?=(?:(?:but|mais|pero|aber|mas|já)\s+)?"
    r"(?:I\b|I'|moi\b|yo\b|ich\b|eu\b|a mí\b))",
    _I,
)
_AGREES = re.compile(r"\b(?:agree|too|as well|d'accord|aussi|también|tambien|auch|também|tambem|same)\b", _I)
_BARE_NO = re.compile(r"^I\s+(?:don't|do not|won't|can't)\b[\s.!]*$", _I)
_MIN_WORDS = 3
_LAUGHTER = re.compile(r"(?:\s+(?:lol|lmao|haha+|ha|xd|jaja+|mdr|kkk+|hehe))+$", _I)
#: "I'd rather die", "I'd rather not": an idiom or a refusal, no taste of the user's.
_NO_TASTE = re.compile(r"^I(?:'d| would)\s+(?:much\s+)?rather\s+(?:not\b|\w+$)", _I)
#: "moi je trouve ça illisible": an opinion of the other person's thing, no taste of the user's own.
_JUDGES_THEIRS = re.compile(
    r"\b(?:trouve|find|finde|encuentro|acho)\s+(?:ça|cela|that|it|this|das|es|eso|esto|isso|isto)\b", _I
)
#: "moi je suis pas sûre", "I'm not sure", "yo no sé", "ich bin mir nicht sicher", "eu não tenho a certeza": the
#: user's doubt alone, no taste (what is doubted is the other person's idea).
_ONLY_UNSURE = re.compile(
    r"^(?:moi,?\s+)?(?:I(?:'m| am) not (?:so |too |really )?sure|I don't know|je (?:ne )?(?:suis )?pas (?:trop |très )?"
    r"s[ûu]re?|je (?:ne )?sais pas|j'sais pas|(?:yo )?no (?:estoy (?:tan |muy )?segur[oa]|lo sé|sé)|ich bin (?:mir )?"
    r"(?:da )?nicht (?:so )?sicher|ich weiß (?:es )?nicht|(?:eu )?não (?:tenho (?:a )?certeza|sei|estou (?:tão )?"
    r"segur[oa]))(?:\s+(?:about (?:it|that)|de ça|de eso|dabei|disso))?$",
    _I,
)
_LEADS = {
    "fr": "Préférence de l'utilisateur : {v}.",
    "es": "Preferencia del usuario: {v}.",
    "de": "Vorliebe des Nutzers: {v}.",
    "pt": "Preferência do usuário: {v}.",
}
#: "… turnos de 12 horas" then "os de 8": the noun (and its unit) the article stands for.
_COUNTED = re.compile(r"\b(?P<noun>[a-zà-ÿ]{3,})\s+de\s+\d+(?:\s+(?P<unit>[a-zà-ÿ]{3,}))?", _I)
_ELIDED = re.compile(r"\b(?P<art>os|as|los|las|les)\s+de\s+(?P<n>\d+)\b(?!\s+[a-zà-ÿ]{3,})", _I)


def shadowed(fact: GroundedFact, stances: Sequence[GroundedFact]) -> bool:
    """Whether `fact` is a preference read from a stance's turn that says only part of it ("The user prefers a
    sound." beside "The user prefers a sound, cautious game.")."""
    if fact.kind is not FactKind.PREFERENCE:
        return False
    said = set(re.findall(r"\w+", fact.value.casefold()))
    return any(
        s is not fact
        and set(s.turns) & set(fact.turns)
        and said < set(re.findall(r"\w+", s.value.casefold()))
        for s in stances
    )


def _parts(text: str) -> list[str]:
    return [p.strip() for p in _PARTS.split(text) if p and p.strip()]


def _restored(stance: str, view: str) -> str:
    """`stance` with an elided counted noun put back from the other person's clause."""
    counted = _COUNTED.search(view)
    if counted is None:
        return stance
    unit = f" {counted['unit']}" if counted["unit"] else ""
    return _ELIDED.sub(lambda m: f"{m['art']} {counted['noun']} de {m['n']}{unit}", stance, count=1)


def _someone_elses_view(part: str) -> bool:
    for match in _OTHERS_VIEW.finditer(part):
        subject = match.group(0).split()[0]
        if not _NOT_OTHER.match(subject) and not HYPOTHETICAL.search(part):
            return True
    return False


def _stance(part: str) -> str:
    """The user's stance said in `part`, or ""."""
    if part.endswith("?") or HYPOTHETICAL.search(part) or _BARE_NO.match(part) or _AGREES.search(part):
        return ""
    match = _STANCE.match(part)
    if match is None:
        return ""
    said = _LAUGHTER.sub("", match["s"].strip().rstrip(".!…").strip()).strip()
    if _NO_TASTE.match(said) or _JUDGES_THEIRS.search(said) or _ONLY_UNSURE.match(said):
        return ""
    return said if len(said.split()) >= _MIN_WORDS else ""


def _text(said: str, lang: str) -> str:
    if lang == "en" or said.startswith(("I ", "I'")):
        return third_person(said).rstrip(".") + "."
    return _LEADS.get(lang, "{v}.").format(v=said)


def own_stances(turns: Sequence[SourceTurn], session_lang: str) -> list[tuple[GroundedFact, tuple[str, ...]]]:
    """The user's preferences said against another person's view, with the part each was read from."""
    found: list[tuple[GroundedFact, tuple[str, ...]]] = []
    for turn in turns:
        view = ""
        for part in _parts(turn.user):
            if _someone_elses_view(part):
                view = part
                continue
            if not view:
                continue
            said = _stance(part)
            if not said:
                continue
            restored = _restored(said, view)
            fact = GroundedFact(
                FactKind.PREFERENCE,
                _text(restored, session_lang),
                "",
                restored,
                (turn.index,),
                PREFERENCE_SALIENCE,
                False,
                "extractor",
                session_lang,
            )
            # the restored noun was said in the other person's clause: it is evidence too
            found.append((fact, (part,) if restored == said else (part, view)))
            view = ""
    return found


__all__ = ["own_stances", "shadowed"]
