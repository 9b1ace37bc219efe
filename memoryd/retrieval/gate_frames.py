"""Request frames (gate-v6): does the request's answer depend on the person asking, or is it about the world?

Person words alone do not say it ("what is the capital of Portugal, my friend?", "¿Qué ver en Coyoacán un
domingo?"), so two grammatical frames are read, each a general rule in en/fr/es/de/pt (folded text, gate.fold):

- **ask_world**: a question about a thing's nature, meaning, mechanism, origin or general facts — "what is X /
  what does X mean / what do X do / difference between / the same as", "how does X work / how is X made", "who invented / wrote / founded X",
  "why is X", "history / origin of X", "how many … are there", "how tall / old / far / big is the X" — and no
  first-person word anywhere in the request (the asker is not part of the question; a generic "you" is allowed:
  "how do you make a roux?").
- **ask_self**: a request whose answer is the asker's own situation or decision — a first person with a modal or
  auxiliary ("should I", "do we need", "dois-je", "¿debo…?", "soll ich", "devo…"), "what do / did / should I …",
  "remind me", "for me / for us" — in any of the five languages.

These are features: the learned model weighs them against what the agent's memory holds (never a rule alone).
"""

from __future__ import annotations

import re
from collections.abc import Collection

from memoryd.retrieval import gate_signals as sig

FRAME_FEATURES: tuple[str, ...] = ("ask_world", "ask_self")

_WORLD = re.compile(
    "|".join(
        (
            # definition, meaning, function, difference: "what is X" (any X), "what does X mean / do"
            r"\bwhat(?:'?s| is| are| was| were)\b|\bwhat (?:does|do) (?!(?:i|we|you)\b)\w+|\b(?:define"
            r"|definition of|meaning of|difference between|explain (?:what|how|why)|the same (?:thing )?as)\b",
            r"\bqu'est-ce (?:que|qu') (?:c'est|un|une|le|la|les|l')|\bc'est quoi\b|\bque (?:veut dire|signifie|fait)\b"
            r"|\bdifference entre\b",
            r"\bque (?:es|son|era|fue|significa|hace)\b|\bdiferencia entre\b",
            r"\bwas (?:ist|sind|is|war|waren|bedeutet|heisst|macht|machen)\b|\bunterschied zwischen\b",
            r"\bo que (?:e|sao|era|foi|significa|quer dizer|faz)\b|\bdiferenca entre\b",
            # mechanism, making
            r"\bhow (?:does|do|did|is|are|was|were) (?:a |an |the )?\w+(?: \w+)? (?:work|made|formed|built|"
            r"produced|grown)\b",
            r"\bcomment (?:fonctionne|marche|se fabrique|est fabrique)\b|\bcomo (?:funciona|se hace|se fabrica"
            r"|se faz|e feit[oa])\b|\bwie (?:funktioniert|wird .{1,30} hergestellt|entsteht)\b",
            # origin, authorship, history
            r"\bwho (?:invented|wrote|discovered|founded|built|painted|composed|designed|created|colonized"
            r"|colonised)\b|\b(?:history|origin) of\b",
            r"\bqui a (?:invente|ecrit|decouvert|fonde|construit|peint|compose|cree|colonise)\b|\b(?:histoire|origine)"
            r" (?:de|du|des|d')",
            r"\bquien (?:invento|escribio|descubrio|fundo|construyo|pinto|compuso|creo|colonizo)\b"
            r"|\b(?:historia|origen) de\b",
            r"\bwer (?:hat|haben) .{1,40}(?:erfunden|geschrieben|entdeckt|gegrundet|gebaut|gemalt|komponiert)\b"
            r"|\b(?:geschichte|ursprung) (?:des|der|von)\b",
            r"\bquem (?:inventou|escreveu|descobriu|fundou|construiu|pintou|compos|criou|colonizou)\b"
            r"|\b(?:historia|origem) (?:de|do|da|dos|das)\b",
            # reasons and general facts about a thing
            r"\bwhy (?:is|are|do|does|did) (?:a |an |the )?\w+",
            r"\bpourquoi (?:le|la|les|l'|est-ce que (?:le|la|les))\b|\bpor que (?:el|la|los|las|o|a|os|as)\b"
            r"|\bwarum (?:ist|sind|hat|haben) (?:der|die|das|ein|eine)\b",
            r"\bhow (?:many|much) .{1,40}(?:are there|in the world|in a|in an|does (?:a|an|the))\b"
            r"|\bhow (?:tall|high|old|long|far|big|deep|heavy|hot|cold) (?:is|are|was) (?:a|an|the)\b",
            r"\bcombien (?:de|d').{1,40}(?:y a-t-il|dans le monde|dans un|dans une)\b"
            r"|\bcuant[oa]s? .{1,40}(?:hay en|en el mundo|tiene (?:un|una|el|la))\b"
            r"|\bwie (?:viele|hoch|alt|gross|lang|weit|tief) (?:ist|sind|hat) (?:der|die|das|ein|eine)\b"
            r"|\bquant[oa]s? .{1,40}(?:ha (?:no|na|em)|existem|no mundo|tem (?:um|uma|o|a))\b",
        )
    )
)

_SELF = re.compile(
    "|".join(
        (
            r"\b(?:should|shall|can|could|do|did|have|am|was|will|must|would) (?:i|we)\b|\b(?:i|we) (?:need|should"
            r"|have to|must|want|ought)\b|\bwhat (?:do|did|should|can|shall|will) (?:i|we)\b|\bremind me\b"
            r"|\bfor (?:me|us)\b",
            r"\b(?:dois|devrais|puis|peux|vais|ai|avais|etais)-je\b|\best-ce (?:que|qu') (?:je|j'|nous|on)\b"
            r"|\bje (?:dois|devrais|peux|vais|veux)\b|\b(?:on|nous) (?:doit|devrait|peut|va|devons|pouvons)\b"
            r"|\brappelle-moi\b|\bpour (?:moi|nous)\b",
            r"\b(?:debo|deberia|puedo|tengo que|necesito|voy a|debemos|deberiamos|podemos|tenemos que"
            r"|necesitamos|vamos a)\b|\brecuerdame\b|\bpara (?:mi|nosotros|nosotras)\b",
            r"\b(?:soll|sollte|kann|konnte|muss|darf|habe|hatte|bin|war|werde) ich\b|\b(?:sollen|sollten|konnen"
            r"|mussen|haben|sind|werden) wir\b|\bich (?:muss|sollte|soll|kann|brauche|will)\b"
            r"|\berinnere mich\b|\bfur (?:mich|uns)\b",
            r"\b(?:devo|deveria|posso|preciso|tenho que|vou|devemos|deveriamos|podemos|precisamos|temos que"
            r"|vamos)\b|\b(?:me lembra|lembra-me|lembre-me)\b|\b(?:para|pra) (?:mim|nos)\b",
        )
    )
)


def frame_features(folded: str, words: Collection[str], *, names_own: bool = False) -> dict[str, float]:
    """FRAME_FEATURES of one request: folded text (gate.fold) and its words. names_own (gate-v7): the request names
    a person or thing that exists in this agent's memory and not in the world's (gate_own.own_names), so it is
    about memory whatever its frame: never ask_world."""
    first_person = any(word in sig.FIRST_SINGULAR or word in sig.FIRST_PLURAL for word in words)
    world = not first_person and not names_own and _WORLD.search(folded) is not None
    return {"ask_world": 1.0 if world else 0.0, "ask_self": 1.0 if _SELF.search(folded) else 0.0}


__all__ = ["FRAME_FEATURES", "frame_features"]
