"""A task dictated to be noted: "Put down: write my reflective accounts by the end of May", "To-do: order the club
jerseys from the printer", "Note-moi : commander les étiquettes neuves", "Apúntame: llamar al gestor el lunes",
"Bitte notieren: das Angebot an die Gemeinde schicken", "Tome nota: enviar as fotografias ao Rui até sexta".

Rule: a user sentence opened by a *note label* — a short phrase that asks for something to be written down or put
on a list (a note, list, to-do, task, job or reminder noun, or a verb of noting: put/write/jot down, note, noter,
apuntar, anotar, notieren, aufschreiben, tomar nota) — and a colon, followed by what to do, is the user's action
item. What follows the colon must read as a task, not a statement: in English it opens with a lower-case word that
is no pronoun, article, possessive or auxiliary ("order the jerseys", not "the shop is shut Mondays" or "I moved");
in French, Spanish and Portuguese it opens with an infinitive (a word in -er/-ir/-re, -ar/-er/-ir, possibly with
a clitic: "enviá-lo"); in German it ends with an infinitive ("… an die Gemeinde schicken", "… zu bestellen"). The
same note request said with "to" instead of a colon ("Put on my list to ring the Pavilion", "add to my to-do list
to renew the insurance") is read the same way in English.

Not read: a question, a hypothetical, a label naming someone else's list ("Tom's to-do: …", "sa liste : …"), a
label not about noting ("Quick update: …", "Good news: …"), a statement after the colon ("Note: the shop is shut on
Mondays", "Rappel : je suis en congé"), a task the other rules already read (the same action item is not stored
twice).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryd.write.grounding.lexicon import HYPOTHETICAL
from memoryd.write.grounding.model import FactKind, GroundedFact, SourceTurn
from memoryd.write.grounding.task_facts import repeats, task_fact, task_words
from memoryd.write.grounding.text import sentences

_I = re.IGNORECASE
#: Words that open a label without being part of it ("Right, …", "Oh, and …", "Please …", "Can you …").
_LEAD = (
    r"^(?:(?:and|also|so|oh|ok|okay|right|anyway|one more|et|aussi|alors|bon|y|también|bueno|pues|und|auch|also|"
    r"e|também|bem|então)[,\s]+)*"
    r"(?:(?:please|can you|could you|would you|will you|s'il te plaît|por favor|bitte|pode|podes)[,\s]+)?"
)
#: A label that asks for a note, per language: the note noun or verb must be in it.
_LABEL = {
    "en": r"(?:(?:put|write|jot|note|scribble|mark) (?:it |that |this )?down|(?:make|take) a note(?: of this)?|note(?: this)?|"
    r"(?:put|add|stick|pop)(?: this| it| that)? (?:on|to|in) (?:my|the) (?:to-?do |task |jobs? )?list|"
    r"(?:for|on) (?:my|the) (?:to-?do |task )?list|(?:put|add|pop) (?:a|in a|this in as a) (?:to-?do|task|reminder)(?: in)?|"
    r"(?:a |one more |another )?(?:to-?do|task|reminder)(?: please| for (?:me|you|this week|today|tomorrow|next week))?|"
    r"(?:a |one more |another )?job for (?:me|you|this week|today|tomorrow|next week|the week)|"
    r"(?:my |the )?(?:to-?do|task|jobs?) list)",
    "fr": r"(?:note(?:z)?(?:-moi| ça| ceci)?|(?:à|a) faire|(?:une )?tâche|(?:un )?rappel|pense-bête|"
    r"(?:mets|mettez|ajoute|ajoutez)(?:-moi)?(?: ça)? (?:sur|dans) (?:ma|la) liste|pour (?:ma|la) liste)",
    "es": r"(?:apunta(?:me)?|anota(?:me)?|apúntame|anótame|(?:toma|tome) nota|(?:una )?tarea|pendiente|"
    r"(?:un )?recordatorio|(?:pon|añade)(?:me)?(?: esto)? en (?:mi|la) lista|para (?:mi|la) lista)",
    "de": r"(?:(?:bitte )?(?:notier(?:e|en)?|notieren sie|schreib(?:e)?|schreiben sie)(?: (?:mir|bitte|das))*(?: auf)?|"
    r"(?:eine )?notiz|(?:eine )?aufgabe|to-?do|(?:eine )?erinnerung|(?:auf|für) (?:die|meine) liste)",
    "pt": r"(?:(?:toma|tome) nota|anota(?:-me)?|aponta(?:-me)?|(?:uma )?tarefa|(?:um )?lembrete|(?:uma )?nota|"
    r"(?:põe|poe|ponha|acrescenta)(?:-me)?(?: isto)? na (?:minha |)lista|para a (?:minha )?lista)",
}
_NOTED = {
    lang: re.compile(rf"{_LEAD}(?P<label>{label})\s*:\s+(?P<v>[^?]+?)[.!\s]*$", _I)
    for lang, label in _LABEL.items()
}
#: "Put on my list to ring the Pavilion", "add to my to-do list to renew the insurance": the note said with "to".
_ON_LIST_TO = re.compile(
    rf"{_LEAD}(?:put|add|stick|pop)(?: it| this| that)? (?:on|to) (?:my|the) (?:to-?do |task |jobs? )?list"
    r"(?: to|, to) (?P<v>[^?]+?)[.!\s]*$",
    _I,
)
#: What opens a statement, not a task, in English.
_EN_NOT_TASK = re.compile(
    r"^(?:I|I'm|I've|I'd|I'll|we|we're|we've|you|he|she|it|it's|they|there|this|that|these|those|the|a|an|my|our|"
    r"your|his|her|their|its|is|are|was|were|be|been|has|have|had|do|does|did|will|would|can|could|should|must|"
    r"no|not|nothing|everything|all|some|every|each)\b",
    _I,
)
#: An infinitive opening a Romance task, a clitic allowed ("commander", "enviar", "enviá-lo", "llamarle").
_ROMANCE_INFINITIVE = {
    "fr": re.compile(
        r"^(?:l'|le |la |les |lui |leur |m'|me |t'|te |en |y )?[a-zàâçéèêëîïôûùüÿœ]{2,}(?:er|ir|re)\b", _I
    ),
    "es": re.compile(r"^[a-záéíóúñü]{2,}(?:ar|er|ir)(?:le|les|lo|la|los|las|me|se|nos)?\b", _I),
    "pt": re.compile(
        r"^[a-záàâãçéêíóôõú]{2,}(?:ar|er|ir|á|ê|i)(?:-(?:lo|la|los|las|me|lhe|lhes|se|nos))?\b", _I
    ),
}
#: A German infinitive ending the task ("… schicken", "… zu bestellen", "… abholen").
_DE_INFINITIVE_END = re.compile(r"\b[a-zäöüß]{2,}(?:en|ern|eln)$")
#: Someone else's list ("Tom's to-do", "sa liste", "su lista", "seine Liste", "a lista dele").
_OTHERS_LIST = re.compile(
    r"(?-i:[A-Z]\w+)(?:'s|’s)\b|\b(?:his|her|their|sa|son|ses|su|sus|seine|ihre|dele|dela)\b", _I
)


def _is_task(value: str, lang: str) -> bool:
    """Whether what follows the note label reads as something to do in `lang` (module docstring)."""
    if len(value.split()) < 2:
        return False
    if lang == "en":
        return value[:1].islower() and _EN_NOT_TASK.match(value) is None
    if lang == "de":
        return _DE_INFINITIVE_END.search(value.rstrip(" .!")) is not None
    pattern = _ROMANCE_INFINITIVE.get(lang)
    return pattern is not None and pattern.match(value) is not None


def noted_tasks(
    turns: Sequence[SourceTurn], session_lang: str, session_time_ms: int, read: Sequence[GroundedFact]
) -> list[tuple[GroundedFact, tuple[str, ...]]]:
    """Action items dictated after a note label, skipping those `read` already holds."""
    found: list[tuple[GroundedFact, tuple[str, ...]]] = []
    pattern = _NOTED.get(session_lang)
    if pattern is None:
        return found
    for turn in turns:
        held = [task_words(f.value) for f in read if f.kind is FactKind.ACTION_ITEM and turn.index in f.turns]
        held += [task_words(f.text) for f in read if f.kind is FactKind.ACTION_ITEM and turn.index in f.turns]
        for sentence in sentences(turn.user):
            said = sentence.strip()
            if said.endswith("?") or HYPOTHETICAL.search(said):
                continue
            match = pattern.match(said)
            if match is not None and _OTHERS_LIST.search(match["label"]):
                continue
            if match is None and session_lang == "en":
                match = _ON_LIST_TO.match(said)
            if match is None:
                continue
            value = match["v"].strip(" ,")
            if not _is_task(value, session_lang):
                continue
            words = task_words(value)
            if repeats(words, held):
                continue
            held.append(words)
            fact = task_fact(value, "action", turn.index, session_lang, session_time_ms)
            found.append((fact, (sentence,)))
    return found


__all__ = ["noted_tasks"]
