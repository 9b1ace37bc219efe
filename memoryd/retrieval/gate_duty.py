"""Does the request presuppose a commitment, and does a personal request name its own object (gate-v12)?

The blind gate_v13 (run once with gate-v11, session 16) declined 17 pinned and 18 episodes questions and sent 11
no-memory queries to the pinned facts. On the fitting sets' TRAIN profiles (gate_v2 .. gate_v13; DEV not read)
gate-v11 declines 131 memory-needing questions (84 pinned, 47 episodes); 108 of them hold no person word ("when's
the deposit due", "bis wann muss die Laterne abgeholt werden", "cuánto hay que pagar al tesorero y hasta cuándo",
"até quando tenho que pedir os reagentes"), so the personal frames (`ask_for_user`, `ask_self`, `ask_about_me`) do
not fire; 17 of the 131 ask by when something must be done. Of its 24 TRAIN no-memory queries sent to pinned, 11 are
`ask_for_user` requests, most of them naming their own object, a thing memory does not hold ("recipe for laverbread
cakes", "give us an easy recipe for pease pudding", "what sunscreen is good for a long day outside"): the answer
does not depend on the person. Two general rules, in en/fr/es/de/pt on folded text
(gate.fold); neither decides alone, the model weighs them with the evidence:

- **ask_due**: the request asks by when something must be done, or what must be done: a deadline word (due,
  deadline; échéance, date limite; plazo, fecha límite, vence; Frist, fällig, Abgabe; prazo, data limite, vence), "by
  / until when" (pour / jusqu'à / avant quand, hasta / para cuándo, bis wann, até / para quando), a when-question
  with an obligation modal ("when must", "quand faut-il", "cuándo tengo que", "wann muss", "quando tenho de"), or an
  obligation of the asker or of nobody in particular ("what do I have to", "qu'est-ce que je dois", "tengo que",
  "was muss ich", "tenho de"). A deadline is a commitment someone made; a question about the world rarely asks what
  must be done by when. Its product with the largest share of the request's terms a section holds (`due_x_known`)
  counts only where memory holds the thing.
- **for_user_x_unknown**: a personal request (`ask_for_user`) that names rare words memory does not hold
  (`rare_unknown`): the request brings its own object ("a recipe for laverbread cakes") rather than leaving it to the
  asker's situation ("suggest a dinner recipe"). It is a product of two features the model already has, so it reads
  no words of its own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

DUTY_FEATURES: tuple[str, ...] = ("ask_due", "due_x_known", "for_user_x_unknown")

#: Obligation modals after a when-question (five languages, folded).
_MODAL = (
    r"(?:must|have to|has to|need to|needs to|got to|should|doit|dois|doivent|devons|devez|faut|tengo que|tenemos que"
    r"|tiene que|tienen que|hay que|debo|debemos|muss|musst|mussen|sollen|soll|tenho de|tenho que|temos de|temos que"
    r"|tem de|tem que|preciso|precisamos|precisa|devo|devemos)"
)
_DUE = re.compile(
    "|".join(
        (
            # en: a deadline word; "by / until when"; "when … must …"; "when … by?"; "what do I have to"
            r"\b(?:due(?! to\b)|overdue|deadline)\b|\b(?:by|until|till) when\b|\bwhen\b(?: [\w']+){0,4} "
            + _MODAL
            + r"\b"
            r"|\bwhen\b(?: [\w']+){1,6} by\s*\??$|\bwhat (?:do|does|must) (?:i|we) (?:have|need) to\b"
            r"|\b(?:i|we) (?:have|need) to [\w']+ (?:[\w']+ ){0,4}by\b",
            # fr
            r"\b(?:echeance|date limite)\b|\b(?:pour|jusqu'a|avant) quand\b|\bquand\b(?: [\w']+){0,3} "
            + _MODAL
            + r"\b"
            r"|\bqu'est-ce (?:que|qu') (?:je dois|on doit|il faut|j'ai a)\b|\b(?:je dois|on doit|il faut) [\w']+"
            r" (?:[\w']+ )*(?:avant|pour) (?:quand|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|demain)\b",
            # es
            r"\b(?:plazo|fecha limite|vence|vencimiento)\b|\b(?:hasta|para) cuando\b|\bcuando\b(?: [\w']+){0,3} "
            + _MODAL
            + r"\b|\b(?:tengo|tenemos) que\b|\bque (?:tengo|tenemos|hay) que\b",
            # de
            r"\b(?:frist|fallig|abgabe\w*|abgabetermin)\b|\bbis wann\b|\bwann\b(?: [\w']+){0,3} "
            + _MODAL
            + r"\b"
            r"|\bwas (?:muss|mussen|soll|sollen) (?:ich|wir)\b",
            # pt
            r"\b(?:prazo|data limite|vence|vencimento)\b|\b(?:ate|para) quando\b|\bquando\b(?: [\w']+){0,3} "
            + _MODAL
            + r"\b|\b(?:tenho|temos) (?:de|que)\b",
        )
    )
)


def ask_due(folded: str) -> bool:
    """Whether the request (folded text) asks by when something must be done, or what must be done."""
    return _DUE.search(folded) is not None


def duty_features(folded: str, f: Mapping[str, float]) -> dict[str, float]:
    """DUTY_FEATURES of one request: folded text (gate.fold) and the features already computed (f: `{p,e,t}_known`,
    `ask_for_user`, `rare_unknown`)."""
    due = 1.0 if ask_due(folded) else 0.0
    known = max(f.get("p_known", 0.0), f.get("e_known", 0.0), f.get("t_known", 0.0))
    return {
        "ask_due": due,
        "due_x_known": due * known,
        "for_user_x_unknown": f.get("ask_for_user", 0.0) * f.get("rare_unknown", 0.0),
    }


__all__ = ["DUTY_FEATURES", "ask_due", "duty_features"]
