"""Query-side signals of the evidence gate in five languages: "complete in itself" requests and person words.

A request that carries everything it needs (arithmetic, code with its inputs, a translation, a general-knowledge
question, a greeting) needs no memory even when it names something memory knows ("how many people live in
Lisbon?"). These patterns are features of the learned gate, never rules on their own: the model weighs them
against what the agent's memory holds. Patterns run on folded text (gate.fold: casefolded, accents stripped).
"""

from __future__ import annotations

import re

#: Arithmetic: an operation between numbers, or a calculation verb.
MATH: tuple[str, ...] = (
    r"\d\s*(?:[-+*/^x\u00d7\u00f7%]|mod|plus|minus|times|divided by|fois|moins|por|mas|menos|mal|geteilt"
    r"|durch|vezes|mais)\s*\(?\s*-?\d",
    r"\b(?:calculate|compute|solve|simplify|evaluate|derivative|integral|square root|factorial|percent of"
    r"|convert \d|how much is \d|what is \d)",
    r"\b(?:calcule[rz]?|resous|combien (?:font|fait) \d|racine carree|pourcentage de)",
    r"\b(?:calcula(?:r)?|resuelve|cuanto (?:es|son) \d|raiz cuadrada|porcentaje de)",
    r"\b(?:berechne|rechne|lose die gleichung|wie viel ist \d|was ist \d|quadratwurzel|prozent von)",
    r"\b(?:calcule|resolva|quanto (?:e|da) \d|raiz quadrada|porcentagem de)",
)

#: Code: fenced blocks, definitions, statements, or a request to write code from given inputs.
CODE: tuple[str, ...] = (
    r"```",
    r"\b(?:def|class|function|fn|func|public|private|static|const|let|var|import|from \w+ import|return|"
    r"select .{1,80} from|#include)\b.{0,80}[(){};=:]",
    r"[{};]\s*$|=>|->|\)\s*\{|\w\(\w*\)\s*[:{]",
    r"\b(?:write|implement|fix|refactor|optimi[sz]e|debug|explain) (?:a |an |this |the )?(?:\w+ ){0,2}?"
    r"(?:function|script|regex|query|class|method|program|snippet|code|sql|loop)\b",
    r"\b(?:ecris|ecrire|corrige|implemente) (?:une |un |ce |cette )?(?:fonction|script|requete|classe|code|"
    r"programme|regex)\b",
    r"\b(?:escribe|escribir|corrige|implementa) (?:una |un |este |esta )?(?:funcion|script|consulta|clase|"
    r"codigo|programa|regex)\b",
    r"\b(?:schreibe?|schreib|korrigiere|implementiere) (?:eine |einen |ein |diese |diesen )?(?:funktion|skript|"
    r"abfrage|klasse|code|programm|regex)\b",
    r"\b(?:escreva|escrever|corrija|implemente) (?:uma |um |esta |este )?(?:funcao|script|consulta|classe|"
    r"codigo|programa|regex)\b",
)

#: Translation requests.
TRANSLATE: tuple[str, ...] = (
    r"\btranslat\w*\b",
    r"\bhow (?:do|would) (?:you|i) say\b",
    r"\bin (?:english|french|spanish|german|portuguese|italian|japanese|chinese)\b",
    r"\btradu(?:is|ire|isez|ction|z|zca|zir|za|cir|ce|ceme|zi)\w*\b",
    r"\bcomment (?:dit-on|dire|on dit)\b",
    r"\bcomo se (?:dice|diz)\b",
    r"\bubersetz\w*\b",
    r"\bwie sagt man\b",
    r"\ben (?:anglais|espagnol|allemand|portugais|ingles|aleman|frances|portugues)\b",
    r"\b(?:auf|ins) (?:englisch|deutsch|franzosisch|spanisch|portugiesisch)\b",
    r"\bem (?:ingles|frances|espanhol|alemao|portugues)\b",
)

#: General-knowledge questions (facts about the world, definitions, how things work).
GENERAL: tuple[str, ...] = (
    r"\b(?:capital|population|currency|president|prime minister|area|height|distance|boiling point)"
    r" (?:of|between)\b",
    r"\bwho (?:wrote|invented|painted|discovered|composed|founded|directed|built|won)\b",
    r"\b(?:what|which) (?:year|century) (?:did|was|were)\b",
    r"\bhow (?:many people|tall|far|deep|long does it take|does (?:a|an|the) \w+ work|do (?:\w+ )?work)\b",
    r"\bwhat (?:is|are|was|does) (?:a |an |the )?(?:meaning|definition|difference)\b",
    r"\b(?:define|definition of|what does \w+ mean|explain (?:how|what|why)|why (?:is|do|does) the)\b",
    r"\bwhat is (?:a|an) \w+\b",
    r"\b(?:capitale|population|monnaie|president) (?:de|du|des)\b",
    r"\bqui a (?:ecrit|invente|peint|decouvert|compose|fonde)\b",
    r"\b(?:combien d'habitants|qu'est-ce qu(?:e|'un|'une)|que veut dire|comment fonctionne|pourquoi le ciel)\b",
    r"\b(?:capital|poblacion|moneda|presidente) de\b",
    r"\bquien (?:escribio|invento|pinto|descubrio|compuso|fundo)\b",
    r"\b(?:cuantos habitantes|que significa|como funciona|que es (?:un|una|el|la))\b",
    r"\b(?:hauptstadt|einwohnerzahl|wahrung|prasident) (?:von|der|des)\b",
    r"\bwer (?:hat|schrieb|erfand|malte|entdeckte) \w+",
    r"\b(?:wie viele einwohner|was bedeutet|wie funktioniert|was ist (?:ein|eine|der|die|das))\b",
    r"\b(?:capital|populacao|moeda|presidente) d[aeo]s?\b",
    r"\bquem (?:escreveu|inventou|pintou|descobriu|compos|fundou)\b",
    r"\b(?:quantos habitantes|o que significa|como funciona|o que e (?:um|uma|o|a))\b",
)

#: Greetings, thanks and small talk.
GREETING: tuple[str, ...] = (
    r"^(?:hi|hello|hey|yo|good (?:morning|afternoon|evening|night)|thanks|thank you|cheers|ok|okay|bye"
    r"|bonjour|salut|bonsoir|merci|coucou|hola|buenos dias|buenas (?:tardes|noches)|gracias|hallo|moin"
    r"|guten (?:morgen|tag|abend)|danke|tschuss|ola|bom dia|boa (?:tarde|noite)|obrigad[oa]|tchau)\b",
    r"\b(?:how are you|how's it going|what's up|ca va|comment vas-tu|comment allez-vous|que tal|como estas"
    r"|wie geht(?:'s| es)|tudo bem|como vai)\b",
)

#: First-person singular, first-person plural and second-person words (whole tokens, folded).
FIRST_SINGULAR = frozenset(
    """
    i me my mine myself im ive id je j moi mon ma mes m yo mi mis mio mia conmigo ich mir mich mein meine meinen meinem meiner meines eu meu minha meus minhas mim comigo
    """.split()  # noqa: SIM905 - a word list reads better as text
)
FIRST_PLURAL = frozenset(
    """
    we us our ours ourselves nous notre nos nosotros nosotras nuestro nuestra nuestros nuestras wir uns unser unsere unseren unserem unserer nossa nosso nossos nossas
    """.split()  # noqa: SIM905 - a word list reads better as text
)
SECOND_PERSON = frozenset(
    """
    you your yours yourself tu toi ton ta tes vous votre vos te ti tus usted du dich dir dein deine deinen ihr euch voce teu tua teus tuas
    """.split()  # noqa: SIM905 - a word list reads better as text
)


def compile_any(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """One alternation of the sources."""
    return re.compile("|".join(f"(?:{source})" for source in patterns))


__all__ = [
    "CODE",
    "FIRST_PLURAL",
    "FIRST_SINGULAR",
    "GENERAL",
    "GREETING",
    "MATH",
    "SECOND_PERSON",
    "TRANSLATE",
    "compile_any",
]
