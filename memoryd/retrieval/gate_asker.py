"""Is the asker the subject of the request (gate-v11)? A question about the asker, or a document about the asker.

The blind gate_v12 (run once with gate-v10, session 15) sent 7 of its 16 identity questions to none. On the fitting
sets' TRAIN profiles (gate_v2 .. gate_v12; DEV not read) gate-v10 declines or misplaces identity questions whose
subject is the asker but which name no identity slot gate-v9's `ask_id_slot` reads ("je suis d'où à la base ?", "qué
idiomas hablo", "mit wem bin ich verheiratet", "where'd I grow up") and requests that fill in a document about the
asker ("… pour le formulaire", "which languages should I put on the CV", "O que ponho em profissão no formulário do
seguro?"). Two general rules, in en/fr/es/de/pt on folded text (gate.fold); neither decides alone, the model weighs
them with the evidence:

- **ask_about_me**: a question (a "?" or a question word) whose subject is the asker in the singular: English "I",
  French "je" / "j'" / "suis-je", German "ich", Spanish "yo" and Portuguese "eu", or, since Spanish and Portuguese
  carry the person in the verb, a first-person-singular form of to be / to have / to live / to work / to do / to
  speak / to study / to be born / to grow up / to be called within three words after a question word ("en qué
  barrio vivo", "de onde sou", "o que faço"), unless another subject's verb comes between ("¿dónde hay trabajo?").
- **ask_form**: the request writes or fills in a document about the asker: a form, an application, a CV, a profile,
  a bio, a lease, a registration or enrolment, a cover letter (formulaire, candidature, bail, inscription;
  formulario, solicitud, currículum, matrícula; Formular, Antrag, Bewerbung, Lebenslauf, Anmeldung; formulário,
  ficha, candidatura, currículo, inscrição), or asks what to put or write in one ("what do I put", "je mets quoi",
  "qué pongo", "was trage ich ein", "o que ponho").

Products with the identity (`about_me_x_id_has`, `about_me_x_id_cos`, `form_x_id_has`) lower the evidence bar for
the identity only. (A third group, the sections' evidence times "the request refers to nobody", was offered to the
DEV selection in session 16 and not chosen: docs/gate.md, "gate-v11".)
"""

from __future__ import annotations

import re
from collections.abc import Mapping

ASKER_FEATURES: tuple[str, ...] = (
    "ask_about_me",
    "ask_form",
    "about_me_x_id_has",
    "about_me_x_id_cos",
    "form_x_id_has",
)

#: A question word opening a clause (five languages, folded).
_QWORD = (
    r"(?:what|where|who|whom|which|when|how|why|quoi|que|qu|qui|ou|quand|quel|quelle|quels|quelles|comment|combien"
    r"|pourquoi|quien|quienes|donde|cuando|cual|cuales|como|cuanto|cuantos|cuanta|cuantas|porque|por que|was|wer|wen"
    r"|wem|wo|woher|wohin|wann|welche|welcher|welches|welchen|wie|warum|o que|quem|onde|qual|quais|quanto|quantos"
    r"|quanta|quantas|por que)"
)
_QUESTION = re.compile(rf"\?|\b{_QWORD}\b")
#: The asker as subject: a first-person-singular pronoun (en, fr, de; es "yo", pt "eu").
_FIRST_SUBJECT = re.compile(r"\bi\b|\bje\b|\bj'|\bsuis-je\b|\bai-je\b|\bich\b|\byo\b|\beu\b")
#: Spanish and Portuguese first-person-singular verb forms (be, have, live, work, do, speak, study, be born, grow up,
#: be called, come from) within three words after a question word.
#: Words that are a verb of another subject: with one between the question word and the form, the form is a noun or
#: an adjective ("¿dónde hay trabajo?", "onde tem trabalho?").
_OTHER_VERB = r"(?:hay|es|esta|son|estan|tiene|tienen|ha|han|e|sao|tem|fica|existe|existen|hace|faz)"
_FIRST_VERB = re.compile(
    rf"\b{_QWORD}(?: (?!{_OTHER_VERB}\b)[\w']+){{0,3}} (?:soy|estoy|tengo|vivo|trabajo|curro|hago|hablo|estudio"
    r"|naci|creci|vengo|me llamo|me dedico|sou|estou|tenho|moro|trabalho|faco|falo|estudo|nasci|cresci|venho"
    r"|me chamo)\b"
)
#: A document about the asker, or what to put in one.
_FORM = re.compile(
    "|".join(
        (
            r"\b(?:form|application|cv|resume|profile|bio|lease|registration|enrol?ment|cover letter|paperwork)\b"
            r"|\bwhat (?:do|should|shall|can) i (?:put|write|enter|fill in|say)\b",
            r"\b(?:formulaire|candidature|cv|profil|bio|bail|inscription|lettre de motivation|dossier d'inscription)\b"
            r"|\bje (?:mets|met|mettrais|ecris|note) quoi\b|\bqu'est-ce que je (?:mets|ecris|note)\b"
            r"|\bque (?:dois-je|je dois) (?:mettre|ecrire)\b",
            r"\b(?:formulario|solicitud|curriculum|cv|perfil|bio|contrato de alquiler|inscripcion|matricula|ficha)\b"
            r"|\bque (?:pongo|escribo|relleno|lleno|debo poner)\b",
            r"\b(?:formular|antrag|bewerbung|lebenslauf|profil|bio|mietvertrag|anmeldung|steckbrief)\b"
            r"|\bwas (?:schreibe|trage|setze) ich\b",
            r"\b(?:formulario|ficha|candidatura|curriculo|cv|perfil|bio|contrato de arrendamento|inscricao|matricula)\b"
            r"|\bo que (?:eu )?(?:ponho|escrevo|coloco|preencho|devo por)\b",
        )
    )
)


def is_question(folded: str) -> bool:
    """Whether the request (folded text) is a question: a question mark or a question word."""
    return _QUESTION.search(folded) is not None


def first_person_verb(folded: str) -> bool:
    """Whether a Spanish or Portuguese first-person-singular verb form follows a question word ("donde vivo")."""
    return _FIRST_VERB.search(folded) is not None


def ask_about_me(folded: str) -> bool:
    """Whether the request (folded text) is a question whose subject is the asker in the singular."""
    return is_question(folded) and (_FIRST_SUBJECT.search(folded) is not None or first_person_verb(folded))


def ask_form(folded: str) -> bool:
    """Whether the request (folded text) writes or fills in a document about the asker, or asks what to put in one."""
    return _FORM.search(folded) is not None


def asker_features(folded: str, f: Mapping[str, float]) -> dict[str, float]:
    """ASKER_FEATURES of one request: folded text (gate.fold) and the features already computed (f: `id_has`,
    `id_cos`)."""
    about_me = 1.0 if ask_about_me(folded) else 0.0
    form = 1.0 if ask_form(folded) else 0.0
    id_has = f.get("id_has", 0.0)
    return {
        "ask_about_me": about_me,
        "ask_form": form,
        "about_me_x_id_has": about_me * id_has,
        "about_me_x_id_cos": about_me * f.get("id_cos", 0.0),
        "form_x_id_has": form * id_has,
    }


__all__ = ["ASKER_FEATURES", "ask_about_me", "ask_form", "asker_features", "first_person_verb", "is_question"]
