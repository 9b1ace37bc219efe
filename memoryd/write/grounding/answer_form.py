"""Standing requests about the form of the assistant's answers said as a polite imperative, without "always":
"please give code examples in R, not Python", "Please write big and simple", "Give me practice plans in plain
English please", "Bitte immer auf Deutsch antworten und duzen", "du kannst mich ruhig duzen".

Rules (each in the user's own turn, a statement, not a question or a hypothetical):

- a polite answering verb (give / write / explain / show / send / answer / reply — donne / écris / explique /
  réponds — dame / escribe / explícame / contesta / responde — gib / schreib / erklär / antworte — dá-me / escreve /
  explica-me / responde) with "please" (s'il te plaît, por favor,
  bitte) in the same sentence, whose rest carries a form of answering: a language or notation ("in R", "in plain
  English", "en français", "auf Deutsch", "em português"), manner words ("big and simple"), or a "not X" contrast;
  its object is never a single thing ("a poem", "the letter", "this email": a one-off task, not a standing rule);
- the German infinitive imperative "(bitte) (immer) auf Deutsch antworten (und duzen)";
- the informal "you" granted: "du kannst mich (ruhig) duzen", "tu peux me tutoyer", "puedes tutearme",
  "podes tratar-me por tu".

An answer / reply verb ("Please answer in plain text, no tables") is a standing rule only in a turn that asks nothing:
beside a question ("What is 2+2? Please answer in French.") it is about that one answer.

Not read: "Please write a short poem in French" (a one-off), "Could you give examples in R?" (a question), "My
boss says: write everything in German" (someone else's rule: the verb must open the user's clause), "If you write
in French, please keep it simple" (a hypothetical), a clause already read as an instruction.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryd.write.grounding.lexicon import HYPOTHETICAL, INSTRUCTION_MARKER
from memoryd.write.grounding.model import FactKind, GroundedFact, SourceTurn
from memoryd.write.grounding.slotfill import instruction_aspect
from memoryd.write.grounding.templates import render
from memoryd.write.grounding.text import detect_language, sentences

_I = re.IGNORECASE
#: Salience of an instruction (grounding/extract.py SALIENCE): kept in step by a test.
INSTRUCTION_SALIENCE = 0.85

_PLEASE = re.compile(r"\b(?:please|pls|s'il te plaît|s'il vous plaît|stp|svp|por favor|bitte)\b", _I)
_VERB = (
    r"(?:give|write|explain|show|send|donne|donnez|écris|écrivez|explique|expliquez|montre|dame|deme|escribe|"
    r"escríbeme|explícame|explica|gib|geben sie|schreib|schreibe|schreiben sie|erklär|erkläre|dá-me|escreve|"
    r"escreve-me|explica-me|mostra|answer|reply|respond|réponds|répondez|responde|respóndeme|contesta|contéstame|"
    r"contésteme|antworte|antworten sie)"
)
#: Verbs about answering: a rule only when the turn asks nothing (else the request is about that one answer).
_ANSWER_VERB = re.compile(
    r"^(?:answer|reply|respond|réponds|répondez|responde|respóndeme|contesta|contéstame|contésteme|antworte|"
    r"antworten sie)\b",
    _I,
)
_IMPERATIVE = re.compile(
    rf"(?:^|,\s+)(?:(?:please|pls|and|also|so|bitte|por favor|s'il te plaît|s'il vous plaît|et|y|und|e)[,\s]+)*"
    rf"(?P<v>{_VERB}(?:-moi|-me)?\b[^,;]*(?:,\s*(?:not|pas|no|nicht|não)\s+(?:(?:in|en|em|auf)\s+)?[\w-]+)?)",
    _I,
)
#: A single thing as the object: a one-off task ("write a poem", "give me the address").
_ONE_THING = re.compile(
    r"^\S+(?:\s+(?:me|moi|mir))?\s+(?:a|an|the|this|that|my|un|une|le|la|ce|cette|un|una|el|este|esta|ein|eine|"
    r"einen|den|die|das|um|uma|o|a|este|esta)\b",
    _I,
)
_LANGUAGE = (
    r"(?:[A-Z][\w+#-]*|plain [\w-]+|[\w-]+-free plain [\w-]+|français|anglais|espagnol|allemand|portugais|"
    r"español|inglés|francés|alemán|portugués|deutsch|englisch|französisch|spanisch|português|inglês|francês|"
    r"espanhol|alemão)"
)
_FORM = re.compile(
    rf"\b(?:in|en|auf|em)\s+{_LANGUAGE}|"
    r"\b(?:big|large|simple|plain|clear|clearly|slowly|short|brief|gros|simple|grande|sencillo|groß|einfach|"
    r"simples|claro)\s*(?:and|et|y|und|e)\s+(?:big|large|simple|plain|clear|short|brief|gros|grande|sencillo|"
    r"groß|einfach|simples|claro)\b|"
    r",\s*(?:not|pas|no|nicht|não)\s+(?:(?:in|en|em|auf)\s+)?[\w-]+",
    _I,
)
_GERMAN_INFINITIVE = re.compile(
    r"(?:^|\b(?:bitte|und)\s+)(?P<v>(?:immer\s+)?(?:auf|in)\s+(?:Deutsch|Englisch|Französisch|Spanisch)\s+"
    r"(?:antworten|schreiben)(?:\s+und\s+(?:duzen|siezen))?)\b",
    _I,
)
_INFORMAL_GRANTED = re.compile(
    r"\b(?P<v>(?:du kannst|sie können) mich (?:ruhig |gerne |gern )?duzen|(?:tu peux|vous pouvez) me tutoyer|"
    r"(?:puedes|puede) tutearme|(?:podes|pode) tratar-me por tu)\b",
    _I,
)
_OVERLAP = 0.5
#: "Answer in English even if I write in German": a condition over every answer makes it a standing rule.
_EVEN_IF = re.compile(
    r"\b(?:even if|even when|même si|aunque|incluso si|auch wenn|selbst wenn|mesmo que|ainda que)\b", _I
)


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.casefold()))


def _requests(sentence: str, asks: bool) -> list[str]:
    """The requests of one sentence; `asks`: the turn holds a question, so an answer verb is about that answer."""
    if sentence.rstrip().endswith("?") or HYPOTHETICAL.search(sentence):
        return []
    said = [m["v"] for m in (_INFORMAL_GRANTED.search(sentence), _GERMAN_INFINITIVE.search(sentence)) if m]
    if _PLEASE.search(sentence):
        for match in _IMPERATIVE.finditer(sentence):
            value = re.sub(r"\s+", " ", _PLEASE.sub("", match["v"])).strip(" ,.!")
            if asks and _ANSWER_VERB.match(value):
                continue
            if _FORM.search(value) and not _ONE_THING.match(value):
                said.append(value)
    return said


def answers_the_question(clause: str, turn_text: str) -> bool:
    """An answer verb's request ("Please answer in French.") in a turn that also asks a question ("What is 2+2?") is
    about that one answer, not a standing rule, unless it says it is one ("always", "from now on", "even if I write
    in German"). extract.py drops the instruction other readers take from such a clause."""
    if INSTRUCTION_MARKER.search(clause) or _EVEN_IF.search(clause):
        return False
    body = re.sub(r"\s+", " ", _PLEASE.sub("", clause)).strip(" ,.!")
    return bool(_ANSWER_VERB.match(body)) and any(s.rstrip().endswith("?") for s in sentences(turn_text))


def answer_forms(
    turns: Sequence[SourceTurn], session_lang: str, read: Sequence[GroundedFact]
) -> list[tuple[GroundedFact, tuple[str, ...]]]:
    """Instructions on the form of answers said as a polite imperative, skipping what `read` already holds."""
    found: list[tuple[GroundedFact, tuple[str, ...]]] = []
    for turn in turns:
        held = [_words(f.value) for f in read if f.kind is FactKind.INSTRUCTION and turn.index in f.turns]
        said = sentences(turn.user)
        asks = any(s.rstrip().endswith("?") for s in said)
        for sentence in said:
            for value in _requests(sentence, asks):
                words = _words(value)
                if any(len(words & h) >= _OVERLAP * len(words) for h in held):
                    continue
                held.append(words)
                # Rendered in the sentence's own language: "Please answer in plain text" in a German session is
                # not "Ständige Anweisung des Nutzers: answer in plain text".
                said_in = detect_language(sentence, default="") or session_lang
                fact = GroundedFact(
                    FactKind.INSTRUCTION,
                    render("instruction", said_in, value[:1].lower() + value[1:]),
                    instruction_aspect(value),
                    value,
                    (turn.index,),
                    INSTRUCTION_SALIENCE,
                    False,
                    "extractor",
                    said_in,
                )
                found.append((fact, (sentence,)))
    return found


__all__ = ["answer_forms", "answers_the_question"]
