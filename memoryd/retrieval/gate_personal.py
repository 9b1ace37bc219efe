"""Personal requests (gate-v8): a request for something chosen, made or planned for the asker.

"snack ideas?", "what should I cook tonight", "¿qué llevo?", "o que eu tomo?", "Was koche ich heute Abend?", "a
gift for the dog", "make me a caption": the right answer depends on durable facts about the person (a diet, an
allergy, a medicine, a pet, a style) that share no word with the request. gate-v7 declined 30 of gate_v9's 115
pinned questions (`none:no_evidence`), most of them of this kind: with no shared word the keyword evidence is nil,
and a global cosine bar does not separate them (an English-trained encoder puts every short request near every
short fact).

Two things are read, each a general rule:

- **ask_for_user**: the request's frame asks for a recommendation, a choice, a plan or a thing to be made for the
  asker — suggest / recommend / ideas / options, "what should / can / do I <verb>", a first-person choice verb
  ("qué llevo", "o que eu tomo", "was koche ich", "je prends quoi"), "which … is best / good for", "is it OK to",
  "make / give / find / plan me …", "for me / for the dog" — in en/fr/es/de/pt (folded text, gate.fold).
- **the pinned section's nearest fact against this agent's own pinned facts**: `p_cos_gap` (the nearest pinned
  fact's cosine minus the mean of ranks 4-10, measured per query on this agent's facts) calibrates the cosine per
  agent; `p_gap_lead` says whether pinned stands out more than any other section does.

The products (`for_user_x_p_has`, `for_user_x_p_gap`, `for_user_x_p_lead`) lower the evidence bar for pinned only:
they are zero unless the request is a personal one, and the model learns their weight for the pinned class.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

FOR_USER_FEATURES: tuple[str, ...] = (
    "ask_for_user",
    "p_gap_lead",
    "for_user_x_p_has",
    "for_user_x_p_gap",
    "for_user_x_p_lead",
)

#: Verbs of choosing, making, eating, taking, wearing, bringing, buying, giving: what a personal request asks the
#: assistant to decide for the asker (first-person present forms in es / pt / de, infinitives in fr / pt).
_CHOICE_EN = (
    r"(?:eat|cook|make|bake|order|drink|take|wear|bring|pack|buy|get|give|gift|read|watch|do|try|pick|choose)"
)
_CHOICE_ES = r"(?:como|cocino|preparo|hago|pido|tomo|bebo|llevo|pongo|compro|regalo|leo|veo|elijo|escojo|hago|ceno|desayuno)"
_CHOICE_PT = (
    r"(?:como|cozinho|preparo|faco|peco|tomo|bebo|levo|ponho|visto|compro|dou|leio|vejo|escolho|janto|almoco)"
)
_CHOICE_DE = r"(?:ess|koch|back|mach|bestell|trink|nehm|zieh|pack|kauf|schenk|les|schau|bring|hol)e?"
_CHOICE_FR = (
    r"(?:mange|cuisine|prepare|fais|commande|bois|prends|mets|porte|emporte|achete|offre|lis|regarde)"
)
_CHOICE_FR_INF = (
    r"(?:manger|cuisiner|preparer|faire|commander|boire|prendre|mettre|porter|emporter|acheter|offrir)"
)

_FOR_USER = re.compile(
    "|".join(
        (
            # en: suggestion, recommendation, ideas, options, a plan; "what should / can / do I <verb>"
            r"\b(?:suggest\w*|recommend\w*|recs?|ideas?|options|inspiration|tips?)\b",
            rf"\bwhat (?:should|can|could|do|shall|would|will) (?:i|we) {_CHOICE_EN}\b"
            rf"|\bwhat to {_CHOICE_EN}\b|\bwhat (?:goes|go|would go|pairs?) (?:well |best )?with\b",
            r"\b(?:which|what) \w+(?: \w+)? (?:should|would|could|is|are) (?:best|good|better|ok|okay|safe)\b"
            r"|\b(?:best|good|safe|nice) \w+(?: \w+)? (?:for (?:me|us|my|our|him|her|them|the)|to (?:bring|take|wear"
            r"|cook|make|eat|buy|give))\b|\bany good \w+\b",
            r"\bis it (?:ok|okay|safe|fine|alright|a good idea) (?:to|for|if)\b|\bcan i (?:have|eat|drink|take|bring"
            r"|wear|go)\b",
            r"\b(?:make|give|get|find|plan|pick|choose|write|draft|build|put together) (?:me|us)\b|\bhelp me (?:plan"
            r"|pick|choose|decide|find)\b|\b(?:gift|present|treat|toy|snack)s? for\b",
            # fr
            r"\b(?:propose\w*|sugg[e]r\w*|conseill\w*|recommand\w*|idees?|astuces?)\b",
            rf"\bqu'est-ce (?:que|qu') (?:je|j'|on) (?:\w+ )?{_CHOICE_FR}\b|\b(?:je|j'|on) {_CHOICE_FR} quoi\b"
            rf"|\b(?:quoi|que) {_CHOICE_FR_INF}\b|\b(?:je peux|puis-je|on peut) {_CHOICE_FR_INF}\b",
            r"\b(?:fais|donne|trouve|prepare|ecris|organise)-(?:moi|nous)\b|\baide-moi a\b"
            r"|\b(?:quel|quelle|quels|quelles) \w+ (?:pour (?:moi|nous|mon|ma|mes|lui|elle)|me conseilles)\b",
            # es
            r"\b(?:suger\w+|recomiend\w+|recomend\w+|ideas?|opciones|consejos?)\b",
            rf"\bque (?:me |le |les |te |nos )?{_CHOICE_ES}\b|\bque (?:puedo|deberia|debo|podemos) \w+\b",
            r"\b(?:dame|hazme|buscame|preparame|planeame|escribeme|armame)\b|\b(?:algo|regalo|plan) para\b"
            r"|\bcual (?:es|seria) (?:el|la) mejor\b",
            # de
            r"\b(?:vorschlag\w*|schlag \w+ (?:\w+ )*vor|empfiehl\w*|empfehl\w*|\w*ideen?|tipps?)\b",
            rf"\bwas {_CHOICE_DE} (?:ich|i|wir)\b|\bwas (?:soll|sollte|kann|konnte|darf) (?:ich|i|wir)\b"
            r"|\bwas fur \w+ (?:ist|sind|ware|waren|passt|passen) (?:gut|am besten|geeignet)\b",
            r"\b(?:gib|mach|such|plan|schreib|stell) (?:mir|uns)\b|\bwelche[nrs]? \w+ (?:ist|sind|passt|passen)"
            r" (?:gut|am besten|fur (?:mich|uns))\b|\b(?:geschenk|etwas|was) fur\b",
            # pt
            r"\b(?:suger\w+|recomend\w+|indica\w*|ideias?|opcoes|dicas?|sugestao|sugestoes)\b",
            rf"\bo que (?:eu |a gente )?(?:\w+ )?{_CHOICE_PT}\b|\bque (?:eu )?{_CHOICE_PT}\b"
            r"|\bo que (?:eu )?(?:posso|devo|faco)\b",
            r"\b(?:me (?:da|de|faz|faca|arruma|passa)|faz (?:uma|um|pra mim))\b|\b(?:programa|presente|algo)"
            r" (?:pra|para)\b|\bqual (?:e )?(?:o|a) melhor\b",
            # any language: a thing wanted, named with an indefinite article and no question word ("un jouet solide
            # pour Kouign ?", "a snack for the drive", "um tira-gosto pro aniversario", "ein Geschenk fur Oma")
            r"^(?:a|an|some|un|une|des|uno|una|unos|unas|algo|um|uma|uns|umas|ein|eine|einen|etwas) \w+"
            r"(?: \w+){0,6} (?:for|pour|para|pra|pro|fur|furs|zum|zur)\b",
            # any language: a thing the asker can eat / take / do ("que yo pueda comer", "que je puisse manger",
            # "that I can eat", "das ich essen darf", "que eu possa comer")
            r"\b(?:i|we) (?:can|could) (?:eat|have|drink|take|wear|use|do)\b|\bque (?:yo |eu |je |j')?(?:si )?"
            r"(?:pueda|podamos|possa|possamos|puisse|puissions) \w+\b|\b(?:ich|wir) \w+ (?:kann|darf|konnen|durfen)\b",
            # any language: a thing wanted for someone or something, named first ("Katzenspielzeug fur Smutje",
            # "prenda para o Rodrigo", "good first dog toy that Biscuit won't swallow"), not a question word
            r"^(?!(?:what|how|who|why|where|when|which|is|are|does|do|can|qu|quel|quoi|comment|pourquoi|que|cual|como"
            r"|cuando|donde|quien|por|was|wie|wer|warum|wo|wann|welche|o que|qual|quem|onde|quando)\b)\w+(?: \w+){0,2}"
            r" (?:for|pour|para|pra|pro|fur|furs) \w+|^(?:good|best|nice|decent) \w+(?: \w+){0,3} (?:for|that|to)\b"
            r"|\balgo (?:a tener|que|para|pra)\b|\bcuales\s*\?|\bwhich ones?\s*\?",
            # any language: a choice offered to the assistant ("A or B?", "scheren oder nicht?") or "will that work
            # for me?" ("da?", "me alcanza?", "passt das?", "ca passe ?")
            r"\b(?:or|ou|o|oder) (?:not|pas|no|nao|nicht)\b|\b\w+ (?:or|ou|oder) \w+(?: \w+){0,3} (?:for|pour|para|pra"
            r"|fur|furs) \w+|[,.] \w+ (?:or|ou|oder) \w+\s*\??$",
            r"(?:^|[,.] ?|\b(?:me|eu) )(?:da|da pra|rola|pode ser|ta bom|ta bien|esta bien|me alcanza|alcanza|sirve|vale"
            r"|passt das|geht das|ca passe|c'est bon|is that ok|does that work|will that work)\s*\?",
        )
    )
)


#: A request whose answer depends on where the asker is ("any good neighbourhoods for a walk near me?", "un resto
#: dans le coin", "algo cerca de casa", "was gibt's hier in der Nahe", "aqui perto"): never complete in itself.
_NEAR = re.compile(
    "|".join(
        (
            r"\b(?:near|around|close to) (?:me|us|here|home|my place|where i live)\b|\bnearby\b|\baround here\b"
            r"|\bin (?:my|our|this) (?:area|city|town|neighbou?rhood)\b|\blocal (?:to me|area)\b",
            r"\bpres de (?:chez )?(?:moi|nous)\b|\bdans (?:le coin|ma ville|mon quartier|notre quartier)\b"
            r"|\bdans les environs\b|\ba proximite\b",
            r"\bcerca de (?:mi|casa|aqui|nosotros)\b|\bpor aqui\b|\ben mi (?:zona|ciudad|barrio)\b|\bpor mi zona\b",
            r"\bin der nahe\b|\bin meiner (?:nahe|gegend|stadt)\b|\bhier in der gegend\b|\bbei mir in der\b"
            r"|\bin der umgebung\b",
            r"\bperto de (?:mim|casa|nos)\b|\baqui perto\b|\bpor aqui\b|\bna minha (?:zona|cidade|regiao)\b",
        )
    )
)


def asks_near(folded: str) -> bool:
    """Whether the request (folded text) depends on where the asker is (near me, around here, in my area)."""
    return _NEAR.search(folded) is not None


def ask_for_user(folded: str) -> bool:
    """Whether the request (folded text) asks for something chosen, made or planned for the asker."""
    return _FOR_USER.search(folded) is not None


def for_user_features(folded: str, f: Mapping[str, float]) -> dict[str, float]:
    """FOR_USER_FEATURES of one request, from its folded text and the features already computed (f: the section
    features `p_has`, `{p,e,t}_cos_gap`)."""
    asked = 1.0 if ask_for_user(folded) else 0.0
    gap = f.get("p_cos_gap", 0.0)
    others = max(f.get("e_cos_gap", 0.0), f.get("t_cos_gap", 0.0))
    lead = 1.0 if f.get("p_has", 0.0) > 0 and f.get("vec_on", 0.0) > 0 and gap > others else 0.0
    return {
        "ask_for_user": asked,
        "p_gap_lead": lead,
        "for_user_x_p_has": asked * f.get("p_has", 0.0),
        "for_user_x_p_gap": asked * gap,
        "for_user_x_p_lead": asked * lead,
    }


__all__ = ["FOR_USER_FEATURES", "ask_for_user", "asks_near", "for_user_features"]
