"""Trigger phrases of the relevance gate in English, French, Spanish, German and Portuguese, as regex sources.

Every pattern runs on folded text (casefolded, accents stripped, curly quotes straightened, whitespace
collapsed, quoted spans removed), so it is written without accents: "heiße" is "heisse", "où" is "ou".
Every pattern is word-bounded. Single words that are usually generic ("before", "ago", "exactly", "recall",
"remember", "my") never fire alone; they need a second cue (see gate.py).
"""

from __future__ import annotations

_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_NUM = r"(?:\d+|a|one|two|three|four|five|six|a few|a couple of|couple of|several)"

# ------------------------------------------------------------------------------------------------ transcript
#: Standalone requests for the user's literal earlier words.
TRANSCRIPT_STRONG: tuple[str, ...] = (
    # en
    r"\bmy (?:exact|precise|original|literal) (?:words|wording|phrasing|message|question|prompt)\b",
    r"\bexact words (?:i|did i)\b",
    r"\bquote (?:me|back what i|what i|my)\b",
    r"\bwhat (?:exactly )?did i (?:write|type)\b(?! (?:below|above|here))",
    r"\bwhat i (?:wrote|typed)\b(?! (?:below|above|here))",
    r"\brepeat (?:back )?(?:exactly |verbatim )?what i (?:said|wrote|typed|asked)\b(?! (?:below|above|here))",
    # fr
    r"\bmes (?:mots|paroles|termes) exacts\b",
    r"\bce que j'ai (?:ecrit|tape)\b(?! ci)",
    r"\bcite(?:-moi| moi)\b",
    # es
    r"\bmis palabras exactas\b",
    r"\b(?:que|lo que) (?:escribi|teclee)\b(?! (?:abajo|arriba))",
    # de
    r"\bmeine (?:genauen|exakten) worte\b",
    r"\bwas (?:habe|hab) ich (?:\w+ ){0,4}?(?:geschrieben|getippt)\b",
    # pt
    r"\bminhas palavras exatas\b",
    r"\bo que (?:eu )?(?:escrevi|digitei)\b(?! (?:abaixo|acima))",
)

#: Literal-recall markers; they fire only with a TRANSCRIPT_SELF cue ("sort exactly as given" stays none).
TRANSCRIPT_MARKERS: tuple[str, ...] = (
    r"\bexact(?:ly)?\b",
    r"\bverbatim\b",
    r"\bword[- ]for[- ]word\b",
    r"\bliterally\b",
    r"\bprecise(?:ly)? (?:wording|words)\b",
    r"\bquote\b",
    r"\bexactement\b",
    r"\bmot (?:pour|a) mot\b",
    r"\btextuellement\b",
    r"\bexactamente\b",
    r"\btextualmente\b",
    r"\bpalabra por palabra\b",
    r"\bliteralmente\b",
    r"\bgenau(?:en)?\b",
    r"\bwortwortlich\b",
    r"\bwort fur wort\b",
    r"\bexatamente\b",
    r"\bpalavra por palavra\b",
)

#: The user's own earlier utterance, for TRANSCRIPT_MARKERS.
TRANSCRIPT_SELF: tuple[str, ...] = (
    r"\bi (?:said|wrote|typed|asked|told you|sent|used)\b(?! (?:below|above|here|just now))",
    r"\bdid i (?:say|write|type|ask|put|phrase)\b",
    r"\bmy (?:words|wording|message|messages|question|prompt|phrasing)\b",
    r"\bj'ai (?:dit|ecrit|tape|demande)\b",
    r"\bje t'ai dit\b",
    r"\b(?:mes mots|mon message|ma question)\b",
    r"\b(?:dije|escribi|te dije|te pregunte)\b",
    r"\b(?:mis palabras|mi mensaje|mi pregunta)\b",
    r"\b(?:habe|hab) ich (?:\w+ ){0,4}?(?:gesagt|geschrieben|gefragt)\b",
    r"\bwas ich (?:\w+ ){0,3}?(?:gesagt|geschrieben|getippt|gefragt) (?:habe|hab)\b",
    r"\bich (?:habe|hab) (?:dir )?(?:\w+ )?(?:gesagt|geschrieben)\b",
    r"\b(?:meine worte|meine nachricht|meine frage)\b",
    r"\b(?:eu disse|eu escrevi|eu te disse|eu perguntei)\b",
    r"\b(?:minhas palavras|minha mensagem|minha pergunta)\b",
)

# -------------------------------------------------------------------------------------------------- identity
#: Questions about the user as a person.
IDENTITY: tuple[str, ...] = (
    # en
    r"\bwhat(?:'s| is| was) my (?:name|full name|job|job title|role|occupation|profession|age|nationality)\b",
    r"\bwho am i\b(?=\s*[?.!]*\s*$| really\b| to you\b)",
    r"\bwhat (?:do|did) you (?:know|remember|recall|learn(?:ed)?) about me\b",
    r"\bwhat have you (?:learned|learnt|figured out) about me\b",
    r"\bwhat you (?:know|remember|have learned|learned) about me\b",
    r"\bwhat my (?:name|full name|job|job title|role|age) (?:is|was)\b",
    r"\b(?:idea|know|guess|remember|tell me) who i am\b",
    r"\btell me (?:what you know )?about (?:myself|me)\b(?!\w)",
    r"\bdescribe me\b",
    r"\bwhat do i do (?:for (?:a )?(?:living|work)|professionally)\b",
    r"\bwhere do i (?:work|live)\b",
    r"\bwhere (?:am i from|was i born)\b",
    r"\bhow old am i\b",
    r"\bdo you know (?:who i am|my name|where i (?:work|live)|what i do)\b",
    r"\bwhat languages? do i speak\b",
    # fr
    r"\bcomment (?:je m'appelle|m'appelle-je)\b",
    r"\bquel est mon (?:nom|prenom|metier|travail|poste|age)\b",
    r"\bqui (?:suis-je|je suis)\b(?=\s*[?.!]*\s*$)",
    r"\b(?:que|qu'est-ce que) (?:sais-tu|tu sais|savez-vous|vous savez) (?:de|sur) moi\b",
    r"\bou (?:est-ce que je travaille|je travaille|j'habite|est-ce que j'habite|je vis)\b",
    r"\bquel age (?:ai-je|j'ai)\b",
    # es
    r"\bcomo me llamo\b",
    r"\bcual es mi (?:nombre|trabajo|profesion|edad|oficio)\b",
    r"\bquien soy(?: yo)?\b(?=\s*[?.!]*\s*$)",
    r"\bque sabes (?:de|sobre) mi\b",
    r"\bdonde (?:trabajo|vivo)\b(?=\s*[?.!]*\s*$)",
    r"\bcuantos anos tengo\b",
    # de
    r"\bwie heisse ich\b",
    r"\bwie ist mein name\b",
    r"\bwer bin ich\b(?=\s*[?.!]*\s*$)",
    r"\bwas weisst du (?:uber mich|von mir)\b",
    r"\bwo (?:arbeite|wohne|lebe) ich\b",
    r"\bwie alt bin ich\b",
    r"\bwas ist mein beruf\b",
    # pt
    r"\bqual e (?:o )?meu nome\b",
    r"\bcomo (?:eu )?me chamo\b",
    r"\bquem sou eu\b",
    r"\bo que (?:voce|tu) (?:sabe|sabes) (?:sobre|de) mim\b",
    r"\bonde (?:eu )?(?:trabalho|moro)\b(?=\s*[?.!]*\s*$)",
    r"\bquantos anos (?:eu )?tenho\b",
    r"\bqual e (?:a )?minha profissao\b",
)

# -------------------------------------------------------------------------------------------------- episodes
#: References to an earlier conversation; they fire alone.
EPISODES_PRIOR: tuple[str, ...] = (
    # en
    r"\bwe (?:discussed|talked|spoke|chatted|covered|decided|agreed|went over|brainstormed|settled on|"
    r"were (?:talking|discussing|working on|planning))\b",
    r"\b(?:did|have) we (?:ever |already )?"
    r"(?:discuss(?:ed)?|talk(?:ed)?|spoke|speak|chat(?:ted)?|cover(?:ed)?|"
    r"decide(?:d)?|agree(?:d)?|settle(?:d)?)\b",
    r"\bwhat did we (?:say|do|figure out|work on|conclude|land on|pick|choose|plan)\b",
    r"\b(?:what|which|when|why) did you (?:tell me|recommend|suggest|mention|promise|advise)\b",
    r"\bour (?:conversation|chat|discussion|session)s? (?:about|on|regarding)\b",
    r"\bwhat (?:were|have) we (?:been )?(?:working on|talking about|discussing|doing)\b",
    r"\byou (?:said|told me|mentioned|suggested|recommended|promised|proposed|advised|gave me|showed me)\b"
    r"(?! (?:above|below|just now))",
    r"\bremember (?:when|what we|what you|the (?:time|conversation|chat|discussion)|our|"
    r"that (?:time|conversation|chat|discussion))\b",
    r"\brecall (?:when|what we|what you|our|the (?:time|conversation|discussion))\b",
    r"\b(?:as|like) i (?:said|mentioned|told you|explained)\b(?! (?:above|below|just now))",
    r"\bi (?:told|asked) you about\b",
    r"\b(?:did|have) i (?:ever |already )?(?:tell|told|mention|mentioned|ask|asked) you\b",
    r"\b(?:where|when) (?:did )?we (?:leave|left) off\b",
    r"\bpick up where we\b",
    r"\bwhere were we\b",
    r"\b(?:our|the|that|my) (?:last|previous|earlier|prior|other) (?:conversation|chat|session|discussion)\b",
    r"\bthat thing (?:we|you) (?:discussed|talked about|mentioned|said)\b",
    r"\bwhen did (?:we|i) (?:last )?(?:talk|discuss|mention|tell you|speak|chat|decide|ask you)\b",
    # fr
    r"\b(?:on a|nous avons|on avait|nous avions) (?:deja )?(?:parle|discute|decide|evoque|aborde|convenu)\b",
    r"\b(?:tu m'as|vous m'avez|tu m'avais) (?:dit|conseille|recommande|parle|explique|suggere|propose)\b",
    r"\btu (?:as|avais) dit\b",
    r"\b(?:notre|la) (?:derniere|precedente) (?:conversation|discussion|session)\b",
    r"\b(?:tu te souviens|te souviens-tu|vous vous souvenez|vous souvenez-vous|tu te rappelles|"
    r"te rappelles-tu) (?:quand|de (?:notre|ce que|la fois)|du jour ou)\b",
    r"\bou (?:en etions-nous|on en etait)\b",
    r"\bde quoi (?:on a|avons-nous) parle\b",
    # es
    r"\b(?:hablamos|conversamos|platicamos|acordamos|hemos hablado|habiamos hablado|discutimos)\b",
    r"\b(?:me dijiste|dijiste|me recomendaste|me sugeriste|me contaste|me comentaste|mencionaste)\b",
    r"\b(?:te dije|te conte|te comente|te mencione)\b",
    r"\bnuestra (?:ultima|anterior) (?:conversacion|charla|sesion)\b",
    r"\b(?:te acuerdas|recuerdas|se acuerda) (?:cuando|de (?:lo que|nuestra|la vez|cuando))\b",
    r"\bdonde (?:lo )?dejamos\b",
    # de
    r"\bwir (?:haben|hatten) (?:\w+ ){0,3}?(?:gesprochen|geredet|besprochen|diskutiert|beschlossen|"
    r"vereinbart|entschieden)\b",
    r"\bwir (?:sprachen|redeten|besprachen)\b",
    r"\bhaben wir (?:\w+ ){0,3}?(?:gesprochen|geredet|besprochen|diskutiert|beschlossen|entschieden)\b",
    r"\bdu hast (?:mir )?(?:\w+ ){0,3}?(?:gesagt|erzahlt|empfohlen|vorgeschlagen|geraten)\b",
    r"\bdu sagtest\b",
    r"\bich (?:habe|hab) dir (?:\w+ ){0,3}?(?:gesagt|erzahlt)\b",
    r"\bunser(?:em|en|e)? (?:letzten?|vorherigen?) (?:gesprach|chat|unterhaltung|sitzung)\b",
    r"\berinnerst du dich,? (?:an unser|wie wir|als wir|was wir|daran,? (?:was|wie|dass) wir)\b",
    r"\bwo waren wir stehen ?geblieben\b",
    # pt
    r"\b(?:conversamos|combinamos|falamos (?:sobre|de|disso|nisso))\b",
    r"\b(?:voce|tu) (?:me )?(?:disse|falou|recomendou|sugeriu|contou)\b",
    r"\b(?:eu te disse|te disse|eu te falei|te contei)\b",
    r"\bnossa (?:ultima|anterior) conversa\b",
    r"\b(?:voce )?(?:se )?lembra (?:quando|do que (?:falamos|conversamos)|da nossa)\b",
    r"\bonde (?:a gente )?paramos\b",
)

#: Time expressions; they point at a past conversation only together with an EPISODES_ANCHOR.
EPISODES_TEMPORAL: tuple[str, ...] = (
    r"\b(?:yesterday|the other day|previously|earlier|recently|before|this morning|last night)\b",
    rf"\blast (?:week|month|year|time|session|weekend|{_WEEKDAYS})\b",
    rf"\b{_NUM} (?:days?|weeks?|months?|years?) ago\b",
    rf"\b(?:on|last) (?:{_WEEKDAYS})\b",
    rf"\bin (?:{_MONTHS})\b",
    r"\b\d{4}-\d{2}-\d{2}\b",
    r"\b(?:hier|avant-hier|l'autre jour|la derniere fois|auparavant|plus tot)\b",
    r"\b(?:la semaine|le mois|l'an) dernier(?:e)?\b",
    r"\bil y a (?:\d+|quelques|deux|trois) (?:jours|semaines|mois|ans)\b",
    r"\b(?:ayer|anteayer|el otro dia|la ultima vez|la otra vez|antes)\b",
    r"\b(?:la semana|el mes|el ano) pasad[oa]\b",
    r"\bhace (?:\d+|unos|unas|dos|tres|poco) (?:dias|semanas|meses|anos)?\b",
    r"\b(?:gestern|vorgestern|neulich|letztes mal|beim letzten mal|vorhin|fruher)\b",
    r"\b(?:letzte woche|letzten monat|letztes jahr)\b",
    r"\bvor (?:\d+|einigen|ein paar|zwei|drei) (?:tagen|wochen|monaten|jahren)\b",
    r"\b(?:ontem|anteontem|outro dia|da ultima vez|na ultima vez|antes)\b",
    r"\b(?:semana|mes|ano) passad[oa]\b",
    r"\b(?:\d+|alguns|algumas|dois|duas|tres) (?:dias|semanas|meses|anos) atras\b",
)

#: Conversation cues that turn a time expression into a reference to an earlier chat.
EPISODES_ANCHOR: tuple[str, ...] = (
    r"\b(?:conversation|chat|chatted|session|discussion)\b",
    r"\b(?:we|you) (?:\w+ )?(?:said|told|mentioned|suggested|recommended|decided|agreed|wrote|gave|showed|"
    r"helped|explained|answered|covered|planned|talked|discussed|looked at|worked on)\b",
    r"\b(?:did|have) (?:we|you) (?:\w+ )?(?:say|tell|mention|suggest|recommend|decide|agree|write|give|show|"
    r"explain|answer|cover|plan|talk|discuss|look at|work on)\b",
    r"\b(?:i|did i) (?:ask|asked|tell|told|mention|mentioned|say|said|share|shared|show|showed|send|sent)"
    r" you\b",
    r"\bdid i (?:ask|tell|mention|say|share)\b",
    r"\b(?:conversation|discussion|parle|discute|dit|mentionne|demande|conseille|recommande)\b",
    r"\b(?:conversacion|charla|dijiste|dije|mencione|mencionaste|pregunte|recomendaste|hablamos)\b",
    r"\b(?:gesprach|unterhaltung|gesagt|erzahlt|besprochen|empfohlen|gefragt)\b",
    r"\b(?:conversa|disse|falou|falamos|conversamos|recomendou|perguntei|mencionei|mencionou)\b",
)

# ---------------------------------------------------------------------------------------------------- pinned
#: Questions about the user's own things (answerable only from memory).
#: Generic "my X" (fix my code) stays none.
PINNED: tuple[str, ...] = (
    # en
    r"\b(?:do|did|can|could|would|will) you (?:still |even )?(?:remember|recall|know)"
    r"(?: about| what| who| where|"
    r" when| which| how)? (?:my|our|the name of my|what i (?:like|prefer|said about my))\b",
    r"\byou (?:remember|know|recall) (?:my|our)\b",
    r"\bremind me (?:\w+ ){0,3}?(?:my|our)\b",
    r"\b(?:what|which|where|when|who|whose|how (?:old|long|much|many|tall|big|far))"
    r"(?: \w+)?(?:'s|'re| is| was| are| were| did| does| do| will)(?: the name of| the)? "
    r"(?:my\b(?! (?:options|chances|odds|rights|alternatives|next steps?|best options?)\b)"
    r"|our\b(?! (?:planet|sun|"
    r"solar|galaxy|universe|world|society|brains?|bodies|body|moon|species|earth|ancestors|economy|climate|"
    r"environment|immune|own)\b))",
    r"\b(?:what|where|when|which|who) did i (?:\w+ ){0,2}my\b",
    r"\b(?:what|which) (?:\w+ ){0,2}(?:do|did) i (?:usually |normally |typically )?"
    r"(?:like|prefer|love|hate|enjoy|"
    r"dislike|drive|wear|own)\b",
    r"\bwhat (?:\w+ )?am i (?:taking|allergic to)\b",
    r"\b(?:what|which|where)(?:'s| is| was)? (?:the name of )?(?:the|that) \w+ (?:i|we) "
    r"(?:like|love|prefer|always|"
    r"usually)\b",
    r"\bmy (?:favou?rite|preferred|usual)\b",
    r"\btell me (?:about )?my (?!own\b)",
    # fr
    r"\b(?:tu te souviens|te souviens-tu|tu te rappelles|te rappelles-tu|vous souvenez-vous|sais-tu|tu sais) "
    r"(?:de |du |des |d')?(?:\w+ ){0,2}?(?:mon|ma|mes|notre|nos)\b",
    r"\b(?:quel|quelle|quels|quelles) (?:est|sont|etait|etaient) (?:le nom de |la date de )?"
    r"(?:mon|ma|mes|notre|nos)\b",
    r"\bcomment s'appelle(?:nt)? (?:mon|ma|mes|notre|nos)\b",
    r"\b(?:quand|ou) est (?:mon|ma|notre)\b",
    r"\brappelle-moi (?:\w+ ){0,3}?(?:mon|ma|mes|notre|nos)\b",
    r"\b(?:mon|ma|mes) (?:\w+ )?prefere(?:e|s|es)?\b",
    # es
    r"\b(?:te acuerdas|recuerdas|sabes|se acuerda) (?:de |del )?(?:\w+ ){0,2}?(?:mi|mis|nuestro|nuestra)\b",
    r"\b(?:cual|cuales|que|cuando|donde|como) (?:es|son|era|fue|se llama|se llamaba) (?:\w+ )?"
    r"(?:mi|mis|nuestro|nuestra)\b",
    r"\brecuerdame (?:\w+ ){0,3}?(?:mi|mis)\b",
    r"\b(?:mi|mis) (?:\w+ )?(?:favorit[oa]s?|preferid[oa]s?)\b",
    # de
    r"\berinnerst du dich (?:noch )?an (?:mein|meine|meinen|meinem|meiner|unser|unsere|unseren)\b",
    r"\b(?:weisst|kennst) du (?:noch )?(?:\w+ ){0,2}?(?:mein|meine|meinen|meinem|unser|unsere)\b",
    r"\b(?:wie|was|wann|wo|welche[rsmn]?) (?:heisst|heissen|ist|war|sind|waren) (?:\w+ )?"
    r"(?:mein|meine|meinen|meinem|meiner|unser|unsere)\b",
    r"\b(?:mein|meine|meinen) lieblings\w*\b",
    # pt
    r"\b(?:voce )?(?:se )?lembra (?:do |da |de |dos |das )?(?:\w+ ){0,2}?"
    r"(?:meu|minha|meus|minhas|nosso|nossa)\b",
    r"\b(?:qual|quais|como|quando|onde|o que) (?:e|sao|era|foi|se chama|se chamava) "
    r"(?:\w+ ){0,3}?(?:o |a |os |as )?"
    r"(?:meu|minha|meus|minhas|nosso|nossa)\b",
    r"\b(?:sabe|sabes) (?:\w+ ){0,2}?(?:o |a )?(?:meu|minha|meus|minhas)\b",
    r"\b(?:meu|minha|meus|minhas) (?:\w+ )?(?:favorit[oa]s?|preferid[oa]s?)\b",
)

#: Common words that are never treated as a known entity, even when an episode lists them.
ENTITY_STOPWORDS: frozenset[str] = frozenset(
    """
    a about above after again against all also always am an and any app api are as ask at away back be
    because been before being below best better between both but by can code could day days did do does
    doing done down during each email english even every few file first for from get go good great had
    has have having he her here hers him his home how i if in into is it its just know last later life
    like little long look made make many may me might more most much my need never new next no not now
    of off old on once one only or other our out over own part people place please project really right
    said same say see she should since so some still such take team than that the their them then there
    these they thing things think this those through time to today too two under until up us use used
    user users very want was way we week well were what when where which while who why will with work
    would year yes yet you your assistant chat conversation session message question help memory data
    model system test tests python java javascript code bug error issue meeting call plan idea le la les
    un une des de du et est pas pour que qui sur avec dans mon ma mes ton ta tes son sa ses nous vous el
    los las unos unas del que por para con mi mis tu tus su sus como pero der die das ein eine und ist
    nicht mit von zu den dem mein meine dein deine sein seine wir ihr sie o os um uma uns umas do da dos
    das em no na nos nas meu minha seu sua
    """.split()  # noqa: SIM905 - a word list reads better as text
)

__all__ = [
    "ENTITY_STOPWORDS",
    "EPISODES_ANCHOR",
    "EPISODES_PRIOR",
    "EPISODES_TEMPORAL",
    "IDENTITY",
    "PINNED",
    "TRANSCRIPT_MARKERS",
    "TRANSCRIPT_SELF",
    "TRANSCRIPT_STRONG",
]
