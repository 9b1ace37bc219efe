"""Words that name one thing across phrasings, so a correction worded unlike the fact it corrects still lands in its
slot: "Aiming to launch on Steam on 6 November" and "release moves to 19 February"; "my goal is under four hours"
and "4:30 is the target now"; "our supplier" and "our vendor".

Each class is a small closed set of nouns and verbs naming one kind of event, aim, provider or term, in the five
languages the extractor reads (English, French, Spanish, German, Portuguese); a stem maps to its class's head word.
These are general synonyms of everyday planning talk, not words of any labelled session: a word belongs to a class
only when every sense a user's plan or fact gives it is that class's ("ship" is left out: a boat as often as a
release; "post" is left out: a letter as often as a job).
"""

from __future__ import annotations

from memoryd.write.grounding.text import fold, light_stem

_CLASSES: tuple[tuple[str, str], ...] = (
    (
        "release",
        "release releases released releasing launch launches launched launching relaunch go-live golive "
        "lancement lancer lance lancé lancée sortie lanzamiento lanzar lanza lanzamos lanzado estreno "
        "veröffentlichung veröffentlichen veröffentlicht launch lançamento lançar lança lançado lançamos",
    ),
    (
        "goal",
        "goal goals target targets aim aims aiming objective objectives objectif objectifs meta metas objetivo "
        "objetivos ziel ziele zielzeit",
    ),
    (
        "move",
        "relocate relocated relocating relocation removal removals déménagement déménager déménagé "
        "mudanza mudarse umzug umziehen umgezogen mudança mudar-se",
    ),
    (
        "supplier",
        "supplier suppliers vendor vendors provider providers fournisseur fournisseurs proveedor proveedores "
        "lieferant lieferanten anbieter fornecedor fornecedores",
    ),
    ("deadline", "deadline deadlines échéance plazo frist abgabetermin prazo"),
    (
        "price",
        "price prices pricing rate rates fee fees tarif tarifs prix precio precios tarifa preis preise preço preços",
    ),
    ("exam", "exam exams examination examen examens prüfung prüfungen exame exames"),
    ("appointment", "appointment appointments rendez-vous rdv cita citas consulta consultas"),
)

#: Stem → head word of its class.
SYNONYM: dict[str, str] = {light_stem(fold(word)): head for head, words in _CLASSES for word in words.split()}


def canonical(stem: str) -> str:
    """The head word of a stem's synonym class, or the stem itself."""
    return SYNONYM.get(stem, stem)


def canonical_set(stems: frozenset[str]) -> frozenset[str]:
    """Every stem of a set as its class's head word."""
    return frozenset(canonical(s) for s in stems)


__all__ = ["SYNONYM", "canonical", "canonical_set"]
