"""What the request presupposes (gate-v10): a fact told before, its current value, or no asker at all.

gate-v9 on the blind gate_v11 sent 20 pinned questions to none (`none:no_evidence`) and 11 no-memory requests to the
pinned facts. Across every full-profile fitting query (gate_v2 .. gate_v11, TRAIN and DEV) gate-v9 declines 120
pinned questions; many carry a word that says the asker told the assistant before or asks for the value as it stands
now, while their keyword evidence is weak (a nickname, a role, a paraphrase): "what are the cats called again",
"Wie heißt mein Vogel noch?", "c'est quoi le cycle maintenant déjà", "who's the heart doctor now?", "wer ist jetzt
eigentlich meine Chefin", "a auditoria é que dia mesmo?". And 36 of its false injections to pinned are requests
whose personal frame (`ask_for_user`) fires on a request that says it is not about the asker ("good tricks for
memorising a speech? not for me, for a uni assignment", "Existe remédio pra melhorar a memória? Curiosidade", "Qual a
melhor praia … pra criança, no geral?"). Three frames are read, each a general rule in en/fr/es/de/pt on folded text
(gate.fold), none deciding alone (the model weighs them with the evidence):

- **ask_recall**: a reminder: the asker wants back something already said ("again", "remind me", "what was …
  called", "déjà", "rappelle-moi", "c'était quoi", "otra vez", "me recuerdas", "cómo se llamaba", "noch mal", "wie
  heißt … noch", "wie war … noch", "erinnere mich", "mesmo?" at the end, "de novo", "me lembra", "qual era").
- **ask_current**: the value as it stands now, which presupposes it changed or was set ("now", "currently", "these
  days" are not: they are generic; "anymore", "still"; "maintenant", "actuellement", "en ce moment", "toujours ?";
  "ahora", "actualmente", "todavía", "aún"; "jetzt", "aktuell", "derzeit", "zurzeit", "mittlerweile", "inzwischen";
  "agora", "atualmente", "ainda") in a question (a "?" or a question word), never in an imperative.
- **ask_confirm**: the asker checks a fact they believe was told: a tag question or a request to confirm ("…,
  right?", "that right?", "is that correct", "n'est-ce pas ?", "c'est bien ça ?", "¿verdad?", "…, ¿no?", "oder?",
  "gell?", "stimmt das?", "né?", "certo?", "não é?").
- **ask_not_mine**: the request says it is not about the asker: curiosity ("just curious", "out of curiosity",
  "par curiosité", "por curiosidad", "aus Neugier", "por curiosidade", "curiosidade" alone), "not for me" / "pas
  pour moi" / "no es para mí" / "nicht für mich" / "não é pra mim", a school / university assignment or homework,
  or a generic marker gate-v9's `ask_generic` lacks ("in general" is there; "no geral", "de manera general",
  "im Grunde genommen", "in the world", "dans le monde", "en el mundo", "auf der Welt", "no mundo").

- **ask_choice**: a request to choose a thing for the asker's own situation in forms gate-v8's `ask_for_user` does
  not read: "which beer would go best with …", "which cleaning products for the workshop", "pick a wine", "anything
  decent?", "what's safe to order", "what should go in …"; "des conseils ?", "quoi prévoir / emporter", "quel outil
  pour …"; "¿qué escalera le compro …?", "¿cuánto pienso le echo …?"; "welche Handschuhe für …", "hast du ein Rezept
  …", "besser Auto oder Zug?"; "que petiscos peço …", "qual presente pra …". Its product with pinned having rows
  (`choice_x_p_has`) lowers the evidence bar for pinned only, as gate-v8's products do.

- **memory_of_thing**: the request's memory word is about a device's, a program's or a technique's memory, not the
  assistant's: a memory / remember / forget / storage word with a device or software noun (phone, browser, site, app,
  computer, card, GPS, radio; "portable", "navigateur"; "móvil", "navegador"; "Handy", "Speicher"; "celular",
  "telemóvel") or with a technique noun (tips, tricks, techniques, a method to memorise).
- route requests ("fastest way to get to …", "best route", "le plus simple pour aller", "la mejor forma de llegar",
  "wie komme ich am schnellsten", "o melhor caminho pra") are read as `ask_choice`: the way depends on how the asker
  travels.

Products: `recall_x_known` (ask_recall, ask_current or ask_confirm × the largest rarity-weighted share of the
query's terms a section holds: a reminder about something memory names), `current_x_p_known` (the current value of a pinned fact: a
corrected fact lives in pinned), `not_mine_x_for_user` (undoes the personal frame).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

RECALL_FEATURES: tuple[str, ...] = (
    "ask_recall",
    "ask_current",
    "ask_not_mine",
    "recall_x_known",
    "current_x_p_known",
    "not_mine_x_for_user",
    "ask_choice",
    "choice_x_p_has",
    "ask_confirm",
    "memory_of_thing",
)

_CHOICE = re.compile(
    "|".join(
        (
            r"\b(?:which|what) \w+(?: \w+)? (?:would|should|could|will|does|do) (?:go|pair|work|be) (?:best|better|well"
            r"|good|ok)\b|\bwhich \w+(?: \w+)? for (?:the|my|our|a|an|this|tonight|tomorrow)\b|\b(?:pick|choose|suggest)"
            r" (?:a|an|some)\b|\banything (?:decent|good|nice|safe|worth|(?:i|we) (?:should|could|can))\b|\bwhat(?:'s| is)"
            r" (?:safe|ok|okay|good|best) to\b|\bwhat should (?:go|i|we) (?:in|into|pack|bring|take)\b"
            r"|\b(?:fastest|quickest|easiest|best|cheapest) (?:way|route) (?:to|from|for)\b|\bbest route\b",
            r"\ble plus (?:simple|rapide) pour (?:aller|rejoindre|arriver)\b|\bcomment (?:aller|me rendre) (?:a|au|chez)\b"
            r"|\b(?:la )?(?:mejor|forma mas rapida de|manera mas rapida de) (?:forma de |manera de |ruta )?(?:llegar|ir)\b"
            r"|\bwie komm(?:e|en) (?:ich|wir) am (?:besten|schnellsten)\b|\b(?:o )?melhor (?:caminho|jeito de chegar"
            r"|forma de chegar|rota)\b",
            r"\b(?:des|un|quelques) conseils?\b|\bquoi (?:prevoir|prendre|emporter|apporter|mettre|acheter|offrir)\b"
            r"|\bquel(?:le)?s? \w+ (?:pour|a prendre|a emporter|me conseilles)\b|\bun truc (?:\w+ )?(?:a|pour)\b",
            r"\bque \w+ (?:le |les |me )?(?:compro|llevo|pido|preparo|cocino|regalo|hago|pongo|echo|doy)\b|\bcuant[oa]s?"
            r" \w+ (?:le|les|me) (?:echo|doy|pongo|compro)\b|\bcual(?:es)? \w+ (?:le |me )?(?:compro|llevo|pido|elijo)\b",
            r"\bwelche[nrsm]? \w+ (?:fur|furs|zum|zur)\b|\bhast du (?:ein|einen|eine) (?:rezept|idee|tipp|vorschlag)\b"
            r"|\bbesser \w+ oder \w+\b|\bwas (?:nehme|bringe|kaufe|koche|esse|trinke|packe) ich\b",
            r"\bque \w+ (?:levo|peco|compro|faco|preparo|cozinho|dou|ofereco|tomo)\b|\bqual \w+ (?:pra|para|levo|compro"
            r"|dou)\b|\bo que (?:levar|comprar|oferecer|preparar)\b",
        )
    )
)

_CONFIRM = re.compile(
    r"(?:,|\b(?:is )?that|\bam i) (?:right|correct)\s*\?|\bis (?:that|it) (?:right|correct)\b|\bisn'?t (?:it|that)\s*\?"
    r"|\bn'est-ce pas\b|\bc'est (?:bien )?(?:ca|juste|correct)\s*\?|\bc'est bien (?:le|la|les|a|au)\b"
    r"|\b(?:verdad|cierto|no)\s*\?\s*$|\bes correcto\b|\bno es asi\b"
    r"|\b(?:oder|gell|gelle|ne|nicht|stimmt(?:'s| das| es)?|richtig)\s*\?\s*$"
    r"|\b(?:ne|certo|nao e|ne isso|correto|e isso)\s*\?\s*$"
)

_DEVICE = (
    r"(?:phone|iphone|browser|site|website|app|computer|laptop|pc|card|gps|radio|router|printer|tablet|drive|disk"
    r"|storage|portable|telephone|navigateur|ordinateur|carte|appli|movil|celular|navegador|ordenador|tarjeta"
    r"|handy|browser|rechner|karte|speicher\w*|drucker|telemovel|computador|cartao|aplicativo)"
)
_THING_MEMORY = re.compile(
    rf"\b{_DEVICE}s?\b.{{0,60}}\b(?:memory|memoire|memor\w+|remember\w*|forget\w*|souvien\w*|oubli\w*|recuerd\w*|olvid\w*"
    r"|merk\w*|vergiss\w*|vergess\w*|voll|full|plein\w*|llen\w*|chei\w*|lembr\w*|esquec\w*)\b"
    rf"|\b(?:memory|memoire|memoria|gedachtnis|speicher|remember|forget\w*|souvien\w*|recuerd\w*|lembr\w*)\b.{{0,60}}"
    rf"\b{_DEVICE}s?\b"
    r"|\b(?:tips|tricks|techniques?|methods?|astuces|trucs|methodes?|tecnicas?|trucos|metodos?|tricks|technik\w*"
    r"|methoden?|dicas|truques) (?:\w+ ){0,2}(?:for|to|pour|para|pra|zum|um|fur|de) (?:\w+ ){0,2}(?:memori[sz]\w*"
    r"|remember\w*|retenir|memoriser|apprendre par coeur|memorizar|recordar|auswendig\w*|merken|decorar)\b"
)

_RECALL = re.compile(
    "|".join(
        (
            # en: "what are the cats called again", "remind me", "what was the name of", "what's X called"
            r"\bagain\s*\??\s*$|\bagain (?:for me|please)\b|\bremind me\b|\bwhat (?:was|were|is|are|'s) (?:the|my|our"
            r"|his|her|their) \w+(?: \w+)? called\b|\bwhat was (?:the|his|her|their|its) name\b",
            # fr: "c'est quoi … déjà", "rappelle-moi", "c'était quoi / quand", "tu te souviens"
            r"\bdeja\s*\??\s*$|\bdeja (?:le|la|les|son|sa|ses)\b|\brappelle-(?:moi|nous)\b|\bc'etait (?:quoi|quand|qui"
            r"|ou|comment|combien|quel|quelle)\b|\bcomment s'appel(?:le|ait)\b",
            # es: "otra vez", "me recuerdas", "cómo se llamaba", "cuál era", "recuérdame"
            r"\botra vez\s*\??\s*$|\bme recuerdas\b|\brecuerdame\b|\bcomo se llama(?:ba)?\b|\b(?:cual|que|cuando|donde"
            r"|quien) era\b",
            # de: "wie heißt … noch", "wie war … noch", "noch mal", "nochmal", "erinnere mich"
            r"\b(?:wie|wo|wann|wer|was|welche\w*) (?:\w+ ){1,5}noch\s*(?:mal|einmal|gleich)?\s*\??\s*$|\bnoch ?mal\b"
            r"|\berinner(?:e|st du)? (?:mich|uns)\b|\bwie hiess\b",
            # pt: "é que dia mesmo?", "de novo", "me lembra", "qual era", "como se chamava"
            r"\bmesmo\s*\??\s*$|\bde novo\s*\??\s*$|\b(?:me lembra|lembra-me|lembre-me)\b|\b(?:qual|quando|onde|quem"
            r"|como) (?:e que )?era\b|\bcomo se chama(?:va)?\b",
        )
    )
)

_CURRENT = re.compile(
    r"\b(?:now|currently|at the moment|right now|anymore|any more|still|nowadays is|maintenant|actuellement"
    r"|en ce moment|desormais|toujours\s*\?|ahora|actualmente|todavia|aun|ya no|en este momento|jetzt|aktuell"
    r"|derzeit|zurzeit|momentan|mittlerweile|inzwischen|noch immer|immer noch|agora|atualmente|ainda|neste momento"
    r"|hoje em dia e)\b"
)
#: A question: a question mark, or a question word opening the request (five languages).
_QUESTION = re.compile(
    r"\?|^(?:what|who|where|when|which|how|is|are|do|does|did|quoi|qui|ou|quand|quel|quelle|comment|est-ce|c'est"
    r"|que|quien|donde|cuando|cual|como|a quien|con quien|wer|wo|wann|was|welche\w*|wie|bei wem|mit wem|o que"
    r"|quem|onde|quando|qual|a quem|com quem)\b"
)

_NOT_MINE = re.compile(
    "|".join(
        (
            r"\b(?:just|only|out of|pure) curio(?:us|sity)\b|^curious\b|\bnot (?:for|about) (?:me|myself|us)\b"
            r"|\bfor (?:a|an|my|our) (?:uni|university|school|class|college) (?:assignment|project|essay|paper)\b"
            r"|\bfor (?:my|a) homework\b|\bin the world\b",
            r"\b(?:par|simple|pure) curiosite\b|\bpas pour (?:moi|nous)\b|\bpour (?:un|mon|ma) (?:devoir|expose"
            r"|dissertation)\b|\bdans le monde\b",
            r"\bpor curiosidad\b|\bno es para (?:mi|nosotros)\b|\bpara (?:un|mi) (?:trabajo (?:de clase|escolar)"
            r"|tarea|deber)\b|\bde manera general\b|\ben el mundo\b",
            r"\baus (?:reiner )?neugier\b|\bnur (?:aus )?interesse\b|\bnicht fur (?:mich|uns)\b|\bfur (?:ein|mein|meine)"
            r" (?:referat|hausaufgabe|hausarbeit)\b|\bim grunde genommen\b|\bauf der welt\b",
            r"\bpor curiosidade\b|(?:^|[.?!] ?)curiosidade\b|\bnao e (?:pra|para) (?:mim|nos)\b|\b(?:pra|para) (?:um|o"
            r" meu|a minha) (?:trabalho da escola|trabalho escolar|dever de casa)\b|\bno geral\b|\bno mundo\b",
        )
    )
)


def ask_recall(folded: str) -> bool:
    """Whether the request (folded text) asks to be reminded of something said before."""
    return _RECALL.search(folded) is not None


def ask_current(folded: str) -> bool:
    """Whether the request (folded text) is a question about a value as it stands now."""
    return _CURRENT.search(folded) is not None and _QUESTION.search(folded) is not None


def ask_not_mine(folded: str) -> bool:
    """Whether the request (folded text) says it is not about the asker (curiosity, not for me, homework)."""
    return _NOT_MINE.search(folded) is not None


def ask_confirm(folded: str) -> bool:
    """Whether the request (folded text) asks to confirm a fact the asker believes was told (a tag question)."""
    return _CONFIRM.search(folded) is not None


def memory_of_thing(folded: str) -> bool:
    """Whether the request's memory word is about a device's, a program's or a technique's memory."""
    return _THING_MEMORY.search(folded) is not None


def ask_choice(folded: str) -> bool:
    """Whether the request (folded text) asks to choose a thing for the asker's own situation."""
    return _CHOICE.search(folded) is not None


def recall_features(folded: str, f: Mapping[str, float]) -> dict[str, float]:
    """RECALL_FEATURES of one request: folded text (gate.fold) and the features already computed (f:
    `{p,e,t}_known`, `ask_for_user`)."""
    recall = 1.0 if ask_recall(folded) else 0.0
    confirm = 1.0 if ask_confirm(folded) else 0.0
    current = 1.0 if ask_current(folded) else 0.0
    not_mine = 1.0 if ask_not_mine(folded) else 0.0
    known = max(f.get("p_known", 0.0), f.get("e_known", 0.0), f.get("t_known", 0.0))
    return {
        "ask_recall": recall,
        "ask_current": current,
        "ask_not_mine": not_mine,
        "recall_x_known": max(recall, current, confirm) * known,
        "current_x_p_known": current * f.get("p_known", 0.0),
        "not_mine_x_for_user": not_mine * f.get("ask_for_user", 0.0),
        "ask_choice": 1.0 if ask_choice(folded) else 0.0,
        "choice_x_p_has": (1.0 if ask_choice(folded) else 0.0) * f.get("p_has", 0.0),
        "ask_confirm": confirm,
        "memory_of_thing": 1.0 if memory_of_thing(folded) else 0.0,
    }


__all__ = [
    "RECALL_FEATURES",
    "ask_choice",
    "ask_confirm",
    "ask_current",
    "ask_not_mine",
    "ask_recall",
    "memory_of_thing",
    "recall_features",
]
