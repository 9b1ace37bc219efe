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
    r"\d\s*%\s*(?:of|de|del|von|do|da|des)\s*\d",
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
    r"\bwhat(?:'s| is) the (?:english|french|spanish|german|portuguese|irish|italian|\w+ish|\w+ese) (?:word )?"
    r"for\b",
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
    r"\b(?:how (?:high|tall|old) is|who (?:was|is) \w+ \w+|how long does (?:it|the|a) \w+ take)\b",
    r"\b(?:opening hours|when does the \w+ (?:museum|gallery) open)\b",
    r"\b(?:quelle (?:hauteur|altitude)|qui (?:etait|est|fut) \w+ \w+|combien de temps (?:faut-il|dure|met))\b",
    r"\b(?:horaires d(?:e|es|u))\b",
    r"\b(?:que altura|cual es la altitud|quien (?:fue|era) \w+|cuanto (?:tarda|dura|se tarda)|horario de)\b",
    r"\b(?:wie hoch ist|wer (?:war|ist) \w+ \w+|wie lange dauert|offnungszeiten)\b",
    r"\b(?:que altura|qual (?:e )?a altitude|quem (?:foi|era) \w+|quanto tempo (?:demora|leva|dura)|horario d)\b",
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
    # Questions about a thing's measures, origin, meaning or history: the same forms in the five languages.
    r"\bhow (?:long|high|big|old|far|deep|wide|heavy) (?:is|are|was|were|can|do|does) (?!(?:my|our|your|we|i|you)\b)"
    r"(?:a |an |the )?[a-z]",
    r"\bwhat does [\w' -]{1,40} mean\b|\bdifference between\b|\bwhere does [\w -]{1,40} come from\b",
    r"\bwhen did (?!(?:my|our|your|we|i|you)\b)(?:the )?[\w -]{1,40} (?:start|begin|end)\b|\bbest time (?:of (?:the )?year )?to visit\b",
    r"\b(?:c'est quoi (?:un|une|le|la|les)|quelle est (?:l'altitude|la hauteur|la longueur|l'origine)|d'ou vient)\b",
    r"\b(?:difference entre|quand a commence|qui a invente)\b",
    r"\b(?:diferencia entre|de donde viene|cuando empezo|que es (?:un|una)|que altura tiene|cuanto mide el)\b",
    r"\b(?:unterschied zwischen|woher kommt|wann begann|wie (?:hoch|lang|alt|gross|tief) (?:liegt|ist) (?:der|die|das)?)\b",
    r"\b(?:diferenca entre|de onde vem|quando comecou|qual a (?:altura|origem)|quem inventou)\b",
    # Distances between places and the size of a kind of thing ("how many km is a marathon").
    r"\b(?:distance|distancia|entfernung|distanz) (?:between|entre|zwischen|de \w+ (?:a|à|en) )",
    r"\bhow many (?:km|kilometers|kilometres|miles|meters|metres|calories|minutes|hours|days|people) (?:is|are|in|has|does)"
    r" (?:a|an|the)\b",
    r"\bcombien de (?:km|kilometres|metres|calories|minutes|heures|jours) (?:fait|dure|a|y a-t-il dans) (?:un|une|le|la)\b",
    r"\bcuant[oa]s (?:km|kilometros|metros|calorias|minutos|horas|dias) (?:tiene|mide|dura|hay en) (?:un|una|el|la)\b",
    r"\bwie viele (?:km|kilometer|meter|kalorien|minuten|stunden|tage) (?:hat|sind|dauert|misst) (?:ein|eine|der|die|das)\b",
    r"\bquant[oa]s (?:km|quilometros|metros|calorias|minutos|horas|dias) (?:tem|mede|dura|ha em) (?:um|uma|o|a)\b",
)

#: Greetings, thanks and small talk.
GREETING: tuple[str, ...] = (
    r"^(?:hi|hello|hey|yo|good (?:morning|afternoon|evening|night)|thanks|thank you|cheers|ok|okay|bye"
    r"|bonjour|salut|bonsoir|merci|coucou|hola|buenos dias|buenas (?:tardes|noches)|gracias|hallo|moin"
    r"|guten (?:morgen|tag|abend)|danke|tschuss|ola|bom dia|boa (?:tarde|noite)|obrigad[oa]|tchau|buenas"
    r"|servus|gruezi|gruss gott|oi|e ai)\b",
    r"\b(?:how are you|how's it going|what's up|ca va|comment vas-tu|comment allez-vous|que tal|como estas"
    r"|wie geht(?:'s| es)|tudo bem|todo bien|como vai)\b",
    # a salutation that is the whole message (gate-v10: "evening", "G'day"; "morning routine tips?" is not one)
    r"^(?:morning|evening|afternoon|g'?day|howdy|hiya|heya|bonne (?:journee|soiree)|buen dia|buenas noches"
    r"|n'?abend|abend|mahlzeit|moinsen|boas|ola a todos|hola a todos)(?: (?:all|everyone|there|mate|tout le monde"
    r"|a todos|zusammen|pessoal))?\s*[!.]*\s*$",
)

#: Words about memory itself ("why does my browser forget passwords", "how to memorise numbers"): memory-like
#: words that often ask for no memory at all; the model weighs them with the person words and the evidence.
MEMORY_TOPIC: tuple[str, ...] = (
    r"\b(?:memory|memories|memori[sz]e|remember|forget|forgetful\w*|recall)\b",
    r"\b(?:memoire|souvenir|oublie\w*|rappeler|retenir|memoriser)\b",
    r"\b(?:memoria|recordar|recuerda\w*|olvid\w+|memorizar)\b",
    r"\b(?:gedachtnis|speicher|erinner\w*|vergess\w*|vergesslich\w*|merke\w*|merken)\b",
    r"\b(?:memoria|lembr\w+|esquec\w+|decorar|memorizar)\b",
)

#: How-to questions: usually general, unless the evidence says the user's own thing is meant.
HOWTO: tuple[str, ...] = (
    r"^(?:how (?:do|can|should|would) (?:i|you|one|we)|how to|what's the best way)\b",
    r"^(?:comment (?:faire|puis-je|je peux|on (?:fait|peut))|quelle est la meilleure facon)\b",
    r"^(?:como (?:hago|puedo|se hace|se puede)|cual es la mejor manera)\b",
    r"^(?:wie (?:kann|mache|sollte|bekomme) ich|wie (?:macht|kann) man|wie merke ich)\b",
    r"^(?:como (?:faco|posso|se faz|eu faco)|qual (?:e )?a melhor maneira)\b",
)

#: Requests for a suggestion or recommendation: answered best with the user's preferences, diet, plans.
ADVICE: tuple[str, ...] = (
    r"\b(?:suggest\w*|recommend\w*|ideas?|what should i|should i|any (?:good )?\w+ for me|can i|could i)\b",
    r"\b(?:propose\w*|sugg[eè]re\w*|conseill\w*|recommand\w*|idees?|je peux|puis-je|qu'est-ce que je)\b",
    r"\b(?:suger\w+|recomend\w+|ideas?|que (?:puedo|deberia|me)|puedo)\b",
    r"\b(?:vorschlag\w*|schlag \w+ (?:\w+ )*vor|empfiehl\w*|empfehl\w*|ideen?|kann ich|soll(?:te)? ich)\b",
    r"\b(?:suger\w+|recomend\w+|indica\w*|ideias?|posso|devo|da pra|dá pra)\b",
)

#: Topics whose good answer depends on the person (diet, health, fitness, gifts): "a dinner recipe", "which
#: antibiotic", "a hike this weekend". A feature, never a rule: the model weighs it with what memory holds.
PERSONAL_TOPIC: tuple[str, ...] = (
    r"\b(?:recipes?|dinner|lunch|breakfast|brunch|snacks?|desserts?|meals?|smoothies?|soups?|salads?|drinks?"
    r"|cocktails?|coffee|espresso|restaurants?|cook(?:ing)?|bak(?:e|ing)|menu|medicines?|medications?|painkillers?"
    r"|antibiotics?|pills?|exercises?|workouts?|hikes?|hiking|gifts?|presents?)\b",
    r"\b(?:recettes?|diner|dejeuner|gouter|collation|desserts?|repas|plats?|boissons?|cafe|restaurants?|cuisiner"
    r"|medicaments?|antibiotiques?|exercices?|entrainements?|randonnees?|cadeaux?)\b",
    r"\b(?:recetas?|cena[rs]?|almuerzo|almorzar|comidas?|desayunos?|meriendas?|postres?|platos?|bebidas?"
    r"|restaurantes?|cocinar|medicamentos?|antibioticos?|ejercicios?|entrenamientos?|caminatas?|regalos?)\b",
    r"\b(?:rezepte?|abendessen|mittagessen|fruhstuck|nachtisch|gerichte?|getranke?|kaffee|kochen|backen"
    r"|medikamente?|antibiotik\w*|ubungen|trainings?|wanderungs?|wanderung|geschenke?)\b",
    r"\b(?:receitas?|jantar|almoco|lanches?|sobremesas?|refeicao|refeicoes|pratos?|remedios?|medicamentos?"
    r"|antibioticos?|exercicios?|treinos?|trilhas?|presentes?|cafe da manha)\b",
)

#: "When / what day / how long until" questions: dates and plans live in memory when the thing is the user's.
ASK_WHEN: tuple[str, ...] = (
    r"\b(?:when|what (?:day|time|date)|how (?:many|long) (?:days|weeks|months) (?:until|till|to))\b",
    r"\b(?:quand|quel jour|a quelle heure|dans combien de)\b",
    r"\b(?:cuando|que dia|a que hora|cuant[oa]s? (?:dias|semanas) (?:faltan|quedan))\b",
    r"\b(?:wann|welche[nm]? tag|um wie viel uhr|wie viele (?:tage|wochen) (?:noch|bis))\b",
    r"\b(?:quando|que dia|a que horas|quant[oa]s (?:dias|semanas) (?:faltam|ate))\b",
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


#: "We" carried by the verb, not a pronoun: Spanish and Portuguese first-person plural endings (decidimos,
#: íbamos, combinamos) and French "on" with a past tense (on avait prévu, on a dit). Folded text.
WE_VERB: tuple[str, ...] = (
    r"\b(?:\w{3,}(?:amos|emos|imos|iamos|abamos|aramos|eramos)|iamos|ibamos|vamos)\b",
    r"\bon (?:a|avait|s'etait|s'est|etait|devait|allait) \w+",
    r"\ba gente\b",
)


def compile_any(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """One alternation of the sources."""
    return re.compile("|".join(f"(?:{source})" for source in patterns))


__all__ = [
    "ADVICE",
    "ASK_WHEN",
    "CODE",
    "FIRST_PLURAL",
    "FIRST_SINGULAR",
    "GENERAL",
    "GREETING",
    "HOWTO",
    "MATH",
    "MEMORY_TOPIC",
    "PERSONAL_TOPIC",
    "SECOND_PERSON",
    "TRANSLATE",
    "WE_VERB",
    "compile_any",
]
