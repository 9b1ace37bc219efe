"""Grammar words per language for the extractor: relation nouns, hedges, hypotheticals, imperatives, questions."""

from __future__ import annotations

import re

from memoryd.write.grounding.text import fold, word_set

# Capitalised names ("Dana", "Dr Ruiz", "São Paulo", "Rio de Janeiro"); case-sensitive inside case-insensitive rules.
_UPPER = "A-ZÀ-ÖØ-Þ"
NAME = (
    # Titles may stack: "Frau Dr. Keller", "Mrs Prof. Wu".
    rf"(?-i:(?P<v>(?:(?:(?:Dr|Dra|Mr|Mrs|Ms|Mx|Prof|Herr|Frau|Sr|Sra|Me|Mme|Mlle)\.?|M\.)\s+){{0,2}}[{_UPPER}][\w'’-]*"
    # "Salt & Vine", "Marks & Spencer": an ampersand joins the parts of one name.
    rf"(?:[ -](?:(?:de|da|do|dos|das|del|van|von|der|den|la|le|di|du)\s+)?[{_UPPER}][\w'’-]*|"
    rf" & (?!I\b)[{_UPPER}][\w'’-]+){{0,2}}))"
)
PLACE = rf"(?-i:(?P<v>[{_UPPER}][\w'’.-]*(?:[ -](?:(?:de|da|do|dos|das|del|la|le|am|an|upon|on)\s+)?[{_UPPER}][\w'’-]*){{0,3}}))"
#: The rest of a clause: stops at punctuation or a conjunction that starts another clause.
CLAUSE_END = (
    r"(?=\s*(?:[.,;:!?()]|$)|\s+(?:because|but|since|though|although|unless|whereas|parce que|car|mais|puisque|"
    r"porque|pero|aunque|weil|aber|obwohl|denn|mas|embora|pois|and then|et puis|y luego|und dann|e depois)\b)"
)
OBJ = rf"(?P<v>[^.,;:!?()]{{2,80}}?){CLAUSE_END}"
REST = r"(?P<v>[^.;!?]{2,160}?)(?=\s*(?:[.;!?]|$))"

#: Relation nouns → (slot key, is single-valued). Single-valued relations are superseded by a newer value.
RELATIONS: dict[str, tuple[str, bool]] = {}
for _key, _single, _words in (
    ("manager", True, "manager boss supervisor chef cheffe patron patronne jefe jefa gerente chefe vorgesetzter "
     "vorgesetzte managerin chefin"),
    ("partner", True, "wife husband partner spouse girlfriend boyfriend fiance fiancee femme mari compagnon compagne "
     "copain copine conjoint conjointe esposa esposo mujer marido pareja novio novia frau mann partnerin freundin "
     "ehefrau ehemann verlobter verlobte namorado namorada parceiro parceira noivo noiva lebensgefährte "
     "lebensgefährtin companheiro companheira compañero"),
    ("mother", True, "mother mom mum mère maman madre mamá mutter mama mãe"),
    ("father", True, "father dad père papa padre papá vater pai"),
    ("vet", True, "vet veterinarian vétérinaire véto veterinario veterinaria tierarzt tierärztin veterinário "
     "veterinária"),
    ("doctor", True, "doctor gp physician médecin docteur médico médica doctora arzt ärztin hausarzt hausärztin"),
    ("dentist", True, "dentist dentiste dentista zahnarzt zahnärztin"),
    ("therapist", True, "therapist psychologist psy thérapeute terapeuta therapeut therapeutin psicólogo psicóloga"),
    ("landlord", True, "landlord landlady propriétaire casero casera vermieter vermieterin senhorio senhoria"),
    ("child", False, "son daughter kid youngest eldest oldest fils fille cadet cadette aîné aînée hijo hija sohn "
     "tochter filho filha"),
    ("neighbour", False, "neighbour neighbor voisin voisine vecino vecina nachbar nachbarin vizinho vizinha"),
    ("associate", False, "associate associé associée socio socia sócio sócia geschäftspartner geschäftspartnerin"),
    ("sibling", False, "brother sister frère sœur soeur hermano hermana bruder schwester irmão irmã"),
    ("colleague", False, "colleague coworker co-worker teammate collègue compañero compañera colega kollege "
     "kollegin"),
    ("friend", False, "friend ami amie amigo amiga"),
    ("cofounder", False, "cofounder co-founder cofondateur cofondatrice cofundador cofundadora mitgründer "
     "mitgründerin"),
    ("dog", False, "dog puppy chien chienne chiot perro perra perrito perrita hund hündin welpe cachorro cachorra cão "
     "cadela cãozinho"),
    ("cat", False, "cat kitten chat chatte chaton gato gata gatito gatita gatinho gatinha katze kater kätzchen"),
    ("pet", False, "rabbit hamster parrot horse lapin cheval conejo caballo kaninchen pferd coelho cavalo"),
    ("physio", True, "physio physiotherapist fisio fisioterapeuta kiné kine kinésithérapeute kinesitherapeute "
     "physiotherapeut physiotherapeutin"),
    ("accountant", True, "accountant comptable contable contadora contabilista steuerberater steuerberaterin "
     "buchhalter buchhalterin"),
    ("lawyer", True, "lawyer solicitor attorney avocat avocate abogado abogada anwalt anwältin advogado advogada"),
    ("adviser", True, "adviser advisor orientador orientadora betreuer betreuerin"),
    ("coach", True, "coach entraîneur entraineur entrenador entrenadora treinador treinadora"),
    ("contractor", True, "contractor builder plumber electrician entrepreneur artisan contratista fontanero "
     "electricista handwerker bauunternehmer klempner elektriker empreiteiro canalizador eletricista"),
    # People of a user's life that every language names the same way: one key per role, so a new tiler replaces
    # the tiler, never the electrician.
    ("director", True, "director directora directeur directrice diretor diretora direktor direktorin"),
    ("team_lead", True, "teamleiter teamleiterin abteilungsleiter abteilungsleiterin"),
    ("mentor", False, "mentor mentora"),
    ("roommate", False, "roommate flatmate housemate colocataire coloc mitbewohner mitbewohnerin"),
    ("cousin", False, "cousin cousine primo prima vetter"),
    ("grandparent", False, "grandmother grandfather grandma grandpa granny grand-mère grand-père mamie papi abuela "
     "abuelo oma opa großmutter großvater avó avô"),
    ("aunt_uncle", False, "uncle aunt auntie oncle tante tío tía onkel tio tia"),
    ("in_law", False, "mother-in-law father-in-law sister-in-law brother-in-law belle-mère beau-père belle-sœur "
     "beau-frère suegra suegro cuñada cuñado schwiegermutter schwiegervater schwägerin schwager sogra sogro "
     "cunhada cunhado"),
    ("nephew_niece", False, "nephew niece neveu nièce sobrino sobrina neffe nichte sobrinho sobrinha"),
    ("babysitter", False, "babysitter nanny nounou canguro niñera babá tagesmutter"),
    ("teacher", False, "teacher tutor professeur professeure maîtresse profesor profesora lehrer lehrerin "
     "professor professora"),
    ("trainer", True, "trainer trainerin"),
    ("hairdresser", True, "hairdresser barber coiffeur coiffeuse peluquero peluquera friseur friseurin "
     "cabeleireiro cabeleireira"),
    ("mechanic", True, "mechanic garagiste mecánico mechaniker mecânico"),
    ("paediatrician", True, "paediatrician pediatrician pédiatre pediatra kinderarzt kinderärztin"),
    ("specialist", False, "dermatologist cardiologist gynaecologist gynecologist dermatologue cardiologue "
     "gynécologue dermatólogo dermatóloga cardiólogo ginecólogo ginecóloga hautarzt hautärztin frauenarzt "
     "frauenärztin dermatologista cardiologista ginecologista"),
    ("tiler", True, "tiler fliesenleger carreleur alicatador azulejista ladrilhador"),
    ("carpenter", True, "carpenter joiner menuisier charpentier carpintero schreiner tischler carpinteiro"),
    ("painter", True, "painter decorator peintre pintor maler"),
    ("gardener", True, "gardener jardinier jardinera jardinero gärtner gärtnerin jardineiro jardineira"),
    ("architect", True, "architect architecte arquitecto arquitecta architekt architektin arquiteto arquiteta"),
):  # fmt: skip
    for _word in _words.split():
        RELATIONS.setdefault(_word, (_key, _single))
PETS = frozenset({"dog", "cat", "pet"})
REL_RE = "|".join(sorted((re.escape(w) for w in RELATIONS), key=len, reverse=True))
#: The relation nouns English rules read: another language's noun in an English sentence is a false friend ("our
#: last chat" is a conversation, not a French cat; "the chef" cooks).
EN_RELATION_WORDS = frozenset(
    [
        "manager",
        "boss",
        "supervisor",
        "wife",
        "husband",
        "partner",
        "spouse",
        "girlfriend",
        "boyfriend",
        "fiance",
        "fiancee",
        "mother",
        "mom",
        "mum",
        "father",
        "dad",
        "vet",
        "veterinarian",
        "doctor",
        "gp",
        "physician",
        "dentist",
        "therapist",
        "psychologist",
        "landlord",
        "landlady",
        "son",
        "daughter",
        "kid",
        "youngest",
        "eldest",
        "oldest",
        "neighbour",
        "neighbor",
        "associate",
        "brother",
        "sister",
        "colleague",
        "coworker",
        "co-worker",
        "teammate",
        "friend",
        "cofounder",
        "co-founder",
        "dog",
        "puppy",
        "cat",
        "kitten",
        "rabbit",
        "hamster",
        "parrot",
        "horse",
        "physio",
        "physiotherapist",
        "accountant",
        "lawyer",
        "solicitor",
        "attorney",
        "adviser",
        "advisor",
        "coach",
        "contractor",
        "builder",
        "plumber",
        "electrician",
        "director",
        "mentor",
        "roommate",
        "flatmate",
        "housemate",
        "cousin",
        "grandmother",
        "grandfather",
        "grandma",
        "grandpa",
        "granny",
        "uncle",
        "aunt",
        "auntie",
        "mother-in-law",
        "father-in-law",
        "sister-in-law",
        "brother-in-law",
        "nephew",
        "niece",
        "babysitter",
        "nanny",
        "teacher",
        "tutor",
        "trainer",
        "hairdresser",
        "barber",
        "mechanic",
        "paediatrician",
        "pediatrician",
        "dermatologist",
        "cardiologist",
        "gynaecologist",
        "gynecologist",
        "tiler",
        "carpenter",
        "joiner",
        "painter",
        "decorator",
        "gardener",
        "architect",
    ]
)
EN_REL_RE = "|".join(sorted((re.escape(w) for w in EN_RELATION_WORDS), key=len, reverse=True))
#: Relations of a service to the user's home or care: "the vet", "the tiler" said with a definite article is theirs.
SERVICE_KEYS = frozenset(
    ["vet", "doctor", "dentist", "therapist", "landlord", "physio", "accountant", "lawyer", "contractor", "tiler",
     "carpenter", "painter", "gardener", "architect", "mechanic", "hairdresser", "paediatrician"]
)  # fmt: skip
SERVICE_RE = "|".join(
    sorted((re.escape(w) for w, (k, _) in RELATIONS.items() if k in SERVICE_KEYS), key=len, reverse=True)
)
SERVICE_EN_RE = "|".join(
    sorted(
        (re.escape(w) for w in EN_RELATION_WORDS if RELATIONS.get(w, ("", False))[0] in SERVICE_KEYS),
        key=len,
        reverse=True,
    )
)

# A sentence that is not a statement of fact about the speaker: hypothetical, fiction, or a wish.
HYPOTHETICAL = re.compile(
    # "Even if I write in English" concedes, it does not imagine: "même si", "auch wenn", "mesmo se", "aun si".
    # A condition opening the sentence, after an inverted mark or "and" / "but" ("¿Y si me ofrecieran …?", "And if
    # we won …?", "Und wenn ich …", "Mais si …").
    r"^(?:[¿¡]\s*)?(?:(?:and|but|so|y|pero|et|mais|und|aber|e|mas)\s+)?(?:if|si|wenn|falls|se)\b(?!\s*[,!.])|(?<!\beven )(?<!\bmême )(?<!\bmeme )(?<!\bmesmo )(?<!\bauch )(?<!\baun )(?<!\baún )"
    r"\b(?:if i|if we|imagine|imagining|suppose|supposing|let's say|let us say|what if|"
    r"hypothetically|pretend|roleplay|role-play|in theory|i wish|in my (?:story|novel|game|book)|my character|"
    r"si j'étais|si j'avais|si je|imaginons|supposons|admettons|et si|mettons que|si fuera|si fuese|si tuviera|"
    r"si yo|imagina|imaginemos|supongamos|qué pasaría si|wenn ich|falls ich|stell dir vor|stellen sie sich vor|"
    r"angenommen|nehmen wir an|se eu|imagine|suponha|suponhamos|e se|finja|fingir|faz de conta|"
    # "Imagínate que me fichara el Real Madrid", "stell dir mal vor", "imagine só": the imperative with its pronoun.
    r"imagínate|imaginate|imagínese|imaginaos|imagine-se|imagina só|stell dir mal vor|stellt euch vor|"
    # A daydream said as one ("… bueno, soñar es gratis", "a man can dream", "on peut rêver").
    r"soñar es gratis|soñar no cuesta nada|(?:a man|a girl|a guy|one|i) can dream|on peut (?:toujours )?rêver|"
    r"sonhar não custa|träumen darf man)\b|"
    # A wish for some day ("I'd love to live in Japan someday", "j'aimerais vivre au Japon un jour"): not a fact.
    r"\b(?:I'd|I would|j'aimerais|j'adorerais|je voudrais|me encantaría|me gustaría|ich würde|würde ich|ich möchte|"
    r"adorava|adoraria|gostaria)\b[^.!?]{0,60}\b(?:someday|some day|one day|un jour|algún día|un día|eines tages|"
    r"irgendwann|um dia|algum dia)\b",
    re.IGNORECASE,
)
# Words before a match that make it someone else's claim or a hedge ("my wife thinks I'm vegan").
REPORTED = re.compile(
    r"\b(?:thinks?|thought|says?|said|believes?|assumes?|guess(?:es|ed)?|wonders?|claims?|doubt|maybe|perhaps|suppose|"
    r"je crois|je pense|je suppose|creo|pienso|supongo|ich glaube|ich denke|ich vermute|acho|penso|suponho|"
    r"probably|not sure|pense|pensent|dit|disent|croit|croient|peut-être|cree|creen|dice|dicen|piensa|piensan|"
    r"quizás|quizá|tal vez|glaubt|glauben|denkt|sagt|sagen|meint|vielleicht|acha|acham|diz|dizem|pensa|talvez|"
    # What the other speaker is said to think ("tu dois penser que je suis …", "du denkst bestimmt, ich bin …").
    r"penser|penses|pensez|crois|croyez|imagines|imaginez|piensas|crees|supones|imaginas|denkst|glaubst|meinst|"
    r"vermutest|achas|achar|pensas|assumed|expects?)\b",
    re.IGNORECASE,
)
NEGATION_NEAR = re.compile(
    r"(?:\b(?:not|never|no longer|don't|do not|didn't|isn't|wasn't|ne|n'|pas|plus|jamais|no|nunca|ya no|nicht|"
    r"kein|keine|nie|nicht mehr|não|nunca|já não)\b|n't)\W*(?:\w+\W+){0,2}$",
    re.IGNORECASE,
)
QUESTION_START = re.compile(
    r"^(?:[¿¡]|(?:what|how|why|when|where|who|whom|whose|which|can you|could you|would you|will you|do you|"
    r"does|did you|is it|is there|are you|are there|should i|shall|est-ce|pourquoi|comment|quand|où|qui|quel|"
    r"quelle|quels|quelles|peux-tu|pouvez-vous|qué|cómo|cuándo|dónde|por qué|quién|cuál|puedes|podrías|"
    r"warum|kannst du|können sie|você pode|pode me)\b)",
    re.IGNORECASE,
)
SMALL_TALK = re.compile(
    r"\b(?:see you|talk (?:to you )?(?:soon|later|tomorrow)|have a (?:nice|good|great)|good (?:night|morning)|"
    r"à demain|à bientôt|bonne (?:nuit|journée|soirée)|hasta (?:mañana|luego|pronto)|buenas noches|bis morgen|"
    r"bis bald|gute nacht|até amanhã|até logo|boa noite|thank you|thanks|merci|gracias|danke|obrigad[oa])\b",
    re.IGNORECASE,
)
#: A whole sentence of chit-chat: leaving or taking a break, the weather, closing the chat.
CHIT_CHAT = re.compile(
    r"^(?:(?:ok|okay|right|well|anyway|ha|haha|oh|so|bon|alors|bueno|pues|na|gut|então|bem|oui|yes|no|non)[\s,!.]+)*"
    r"(?:(?:I'm |I am |I'll be |we're )?(?:going|off|heading|gonna go) (?:to (?:grab|get|have|make|take)|for) "
    r"(?:a |an |some |my |our )?(?:quick )?(?:coffee|tea|lunch|dinner|break|breakfast|snack|walk|nap|drink)\b|"
    r"(?:got to|gotta|have to|need to|must) (?:go|run|dash|leave)(?: now)?\s*(?:[.!,]|$)|time for (?:a |my )?(?:coffee|lunch|break)\b|"
    r"that's (?:all|it) for (?:now|today)\b|that is all for now\b|"
    r"(?:là |bon,? )?je (?:file|dois (?:y aller|filer|partir|te laisser))\b|je te laisse\b|c'est tout pour "
    r"(?:l'instant|aujourd'hui|le moment)\b|j'ai un (?:déjeuner|dîner|rendez-vous) (?:là|maintenant)\b|"
    r"(?:me voy(?: ya)?|tengo que irme|me tengo que ir)\s*(?:[.!,]|$)|eso es todo\b|ich muss (?:los|weg|jetzt los)\b|das war's\b|"
    r"(?:tenho de|tenho que|preciso) (?:ir|sair)(?: agora)?\s*[.!]|é tudo por (?:agora|hoje)\b|"
    r"(?:rainy|sunny|cloudy|foggy|misty|humid|muggy|cold|hot|freezing|windy|grey|gray|snowing|raining) (?:again |today |out )?(?:here|today|again|"
    r"outside)\b|(?:il pleut|il fait (?:beau|froid|chaud)|llueve|hace (?:frío|calor)|es regnet|está a chover|"
    r"está chovendo)\b|"
    # Remarks on the weather or the day opening a sentence: "Lovely weather today", "Schönes Wetter heute",
    # "Quel beau temps", "¡Qué calor hace!", "Que calor tem feito".
    r"(?:what )?(?:lovely|nice|beautiful|gorgeous|glorious|great|terrible|awful|horrible|miserable|crazy|weird) "
    r"weather\b|what a (?:lovely |beautiful |gorgeous |miserable )?(?:day|weather)\b|"
    r"(?:quel|quelle) (?:beau |sale |belle )?(?:temps|journée|chaleur|froid)\b|(?:beau|sale) temps\b|"
    r"qu(?:é|e) (?:calor|frío|frio|tiempo|día|dia|tempo)\b|(?:hace|hoy hace) (?:un día|buen tiempo|mal tiempo)\b|"
    r"(?:schönes|tolles|herrliches|mieses|schreckliches|was für ein) wetter\b|endlich (?:frühling|sommer|sonne)\b|"
    r"(?:faz|está|está um|que) (?:um )?(?:calor|frio|bom tempo|dia lindo)\b)",
    re.IGNORECASE,
)
#: The speaker in a sentence: a remark that also says "I" ("you're right, I'm vegan") is about the user too.
FIRST_PERSON = re.compile(
    r"\b(?:I|I'm|I've|I'll|I'd|my|me|mine|je|j'|moi|mon|ma|mes|yo|mi|mis|me|ich|mein|meine|mir|mich|eu|meu|minha)\b"
    r"|\bj'",
    re.IGNORECASE,
)
#: A remark about the assistant itself ("you're probably a great cook", "tu deves ser do Brasil"): not the user's.
ABOUT_ASSISTANT = re.compile(
    r"^(?:(?:ha|haha|oh|lol|well|so|and|bon|et|y|e)[\s,!.]+)*(?:you(?:'re| are| must| probably| seem| sound| look| "
    r"have| had| would| were)|are you|do you (?:have|like|live|eat)|tu (?:es|dois|deves|as|sembles|pareces|eres)|"
    r"vous êtes|t'es|tú eres|eres|du bist|bist du|você é|você deve|você tem|tu tens)\b",
    re.IGNORECASE,
)
#: A sentence reporting the assistant's words ("You said …", "tu m'as proposé …", "me dijiste …", "du meintest …"),
#: in the simple past, the perfect or the past perfect ("you'd told me …", "tu m'avais dit …", "me habías dicho …",
#: "du hattest gesagt …", "você me disse / tinha dito …"): what is reported is the assistant's, answered by what
#: follows it.
ASSISTANT_SAID = re.compile(
    r"\b(?:you(?:'d| had)? (?:suggested|said|asked|mentioned|thought|assumed|guessed|recommended|wrote|written|"
    r"told me)|tu (?:m'as|as|m'avais|avais) (?:proposé|dit|suggéré|écrit)|"
    r"vous (?:m'avez|avez|m'aviez|aviez) (?:proposé|dit|suggéré|écrit)|"
    r"(?:vos |tú )?me (?:dijiste|sugeriste|propusiste|escribiste|habías (?:dicho|sugerido|propuesto|escrito))|"
    r"du (?:hast|hattest) (?:gesagt|vorgeschlagen|geschrieben|gemeint)|du (?:meintest|sagtest|dachtest)|"
    r"(?:você|tu) (?:me )?(?:sugeriu|disse|sugeriste|disseste|escreveu|tinhas? (?:dito|sugerido|escrito)))\b",
    re.IGNORECASE,
)
PAST = re.compile(
    r"\b(?:yesterday|last|ago|was|were|went|did|had|used to|hier|dernier|dernière|passé|ayer|pasado|pasada|"
    r"anoche|gestern|letzte|letzten|letztes|vorige|ontem|passado|passada)\b",
    re.IGNORECASE,
)
INSTRUCTION_MARKER = re.compile(
    r"\b(?:always|never|from now on|going forward|in (?:the )?future|by default|every time|toujours|jamais|"
    r"désormais|dorénavant|à partir de maintenant|à l'avenir|par défaut|siempre|nunca|jamás|a partir de ahora|"
    r"de ahora en adelante|en adelante|por defecto|immer|nie|niemals|ab jetzt|von nun an|ab sofort|künftig|"
    r"standardmäßig|sempre|a partir de agora|daqui (?:para|pra) frente|de agora em diante|por padrão)\b",
    re.IGNORECASE,
)
_IMPERATIVES = {
    "en": "answer reply respond write use speak talk call address format keep include avoid give show explain "
    "summarize summarise add put start end list be stop tell send mention refer cite ask quote convert express "
    "measure suggest recommend propose assume remind check skip round price flag mark don't do not never always",
    "fr": "réponds répondez écris écrivez utilise utilisez parle parlez appelle appelez tutoie tutoyez vouvoie "
    "vouvoyez évite évitez donne donnez mets mettez garde gardez fais faites explique expliquez ajoute ajoutez "
    "sois soyez ne n' commence commencez termine terminez rappelle rappelez préviens prévenez toujours jamais",
    "es": "responde responda respóndeme contesta conteste contéstame escribe escriba usa use utiliza utilice habla "
    "hable háblame llámame trátame evita evite dame deme pon ponga incluye incluya explica explique mantén sé sea "
    "no siempre nunca uses utilices escribas respondas contestes hables pongas incluyas expliques des digas "
    "recuérdame avísame recuerda avisa",
    "de": "antworte antworten schreib schreibe schreiben benutze benutzen verwende verwenden nutze nutzen sprich "
    "sprechen nenn nenne nennen vermeide vermeiden gib geben halte halten erkläre erklären duze duzen sieze "
    "siezen sei seien fang beginne erinnere erinnern immer nie niemals",
    "pt": "responda responde escreva escreve use usa utilize utiliza fale fala me chame chame-me evite evita dê dá "
    "mantenha explique explica seja sê não nunca sempre coloque inclua uses escrevas respondas fales ponhas digas "
    "lembra lembre lembra-me avisa avise",
}
IMPERATIVES = {lang: frozenset(words.split()) for lang, words in _IMPERATIVES.items()}
#: How the assistant talks to the user: a style noun ("tone", "answers") said with "me" or "your" ("keep the tone
#: casual with me", "keep your answers short") makes an imperative a standing instruction, not a one-off request.
STYLE_NOUN = re.compile(
    r"\b(?:tone|style|answers?|replies|responses|messages|format|formatting|wording|register|jargon|emojis?|"
    r"ton|style|réponses?|registre|jargon|tono|estilo|respuestas?|mensajes|formato|registro|jerga|ton|stil|"
    r"antworten|nachrichten|fachjargon|tom|estilo|respostas?|mensagens|linguagem)\b",
    re.IGNORECASE,
)
#: Leading words to drop before looking for an imperative ("please", "and also", "ok so").
LEAD_FILLER = re.compile(
    r"^(?:(?:please|pls|and|also|oh|ok|okay|so|btw|by the way|one more thing|actually|well|anyway|update|quick update|just so you know|fyi|for the record|en fait|au fait|d'ailleurs|à propos|pour info|bueno|de hecho|por cierto|por cierto|a propósito|übrigens|eigentlich|na verdade|aliás|a propósito|já agora|s'il te plaît|s'il vous plaît|stp|"
    r"svp|et|aussi|bon|alors|por favor|y|también|bueno|bitte|und|auch|also|ah|e|também|ah|então)\b[\s,:]*)+",
    re.IGNORECASE,
)
LANGUAGE_NAMES = re.compile(
    r"\b(?:english|french|spanish|german|portuguese|italian|anglais|français|espagnol|allemand|portugais|"
    r"inglés|francés|español|alemán|portugués|englisch|französisch|spanisch|deutsch|portugiesisch|inglês|"
    r"francês|espanhol|alemão|português)\b",
    re.IGNORECASE,
)
# Suffixes of nouns naming a job ("engineer", "nurse" aside): used to tell "I'm a teacher" from "I'm a bit tired".
ROLE_SUFFIX = re.compile(
    r"(?:er|or|ist|ian|eer|ect|ant|ent|ogist|nurse|chef|cook|pilot|clerk|nanny|coach|agent|analyst|dev|student|"
    r"intern|retiree|medic|barista|mechanic|technician|pm|cto|ceo|cfo|vp|scientist|artist|principal|surgeon|vet|postdoc)$",
    re.IGNORECASE,
)
NOT_ROLES_RAW = word_set(
    "beginner member user newcomer lover believer customer sucker worrier thinker fan person parent bit lot "
    "little fast slow early late number other quarter corner winner loser fighter dreamer fast-learner "
    "night morning big huge great anfänger anfängerin neuling kunde kundin nutzer nutzerin benutzer benutzerin "
    "teilnehmer teilnehmerin mitglied fan"
)
#: Folded (no accents), as the extractor compares them.
NOT_ROLES = frozenset(fold(word) for word in NOT_ROLES_RAW)
DIET_WORDS = re.compile(
    r"^(?:vegetarian|vegan|pescatarian|pescetarian|plant-based|végétarien(?:ne)?|végétalien(?:ne)?|végane?|"
    r"vegetarian[oa]|vegan[oa]|pescetarian[oa]|vegetarier(?:in)?|veganer(?:in)?|vegetarisch)$",
    re.IGNORECASE,
)
AFFIRMATIVE = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|correct|exactly|that's right|that is right|right|indeed|i am|oui|exactement|"
    r"c'est ça|c'est exact|tout à fait|effectivement|sí|claro|exacto|eso es|así es|ja|genau|stimmt|richtig|"
    r"sim|isso|exato|exatamente|é isso)\b",
    re.IGNORECASE,
)
ASSISTANT_GUESS = re.compile(
    r"\b(?:you(?:'re| are| sound like| seem(?: to be)?(?: like)?| must be)|are you|tu es|vous êtes|es-tu|"
    r"êtes-vous|tu sembles être|eres|pareces|es usted|du bist|bist du|sie sind|sind sie|você é|você parece|"
    r"és)\s+(?:(?:an?|un|une|uno|una|ein|eine|um|uma)\s+)?(?P<v>[\w-]+)",
    re.IGNORECASE,
)
# Verbs that ask for help rather than name a task ("I need to understand …").
NOT_TASKS = re.compile(
    r"^(?:know|understand|figure|find out|think|decide|pick|choose|learn|see|ask|say|admit|be|get better|sleep|relax|rest|"
    r"wonder|vent|savoir|comprendre|réfléchir|penser|dormir|avouer|dire|être|saber|entender|pensar|dormir|"
    r"admitir|decir|descansar|ser|wissen|verstehen|nachdenken|schlafen|zugeben|sagen|sein|saber|entender|"
    r"pensar|dormir|admitir|dizer|descansar|ser|de ajuda|ayuda|hilfe|aide|help)\b",
    re.IGNORECASE,
)
HEDGE = re.compile(
    r"\b(?:maybe|perhaps|might|probably|possibly|not sure|thinking (?:about|of)|considering|peut-être|"
    r"quizás|quizá|tal vez|vielleicht|talvez|wondering)\b",
    re.IGNORECASE,
)
CHOICE_CATEGORIES = re.compile(
    r"\b(?:database|db|editor|ide|framework|language|library|host|hosting|cloud|provider|backend|frontend|stack|"
    r"orm|queue|broker|cache|ci|laptop|phone|vendor|theme|font|base de données|base de datos|datenbank|"
    r"banco de dados|éditeur|editor|framework)\b",
    re.IGNORECASE,
)
FOR_TARGET = re.compile(r"\b(?:for|pour|para|für)\s+(?:(?:the|our|my|le|la|les|notre|el|nuestro|nuestra|den|die|das|"
                        r"unser|unsere|o|a|nosso|nossa)\s+([\w-]+(?:\s[\w-]+)?)|"
                        # An activity without an article names the purpose too: "for issue tracking", "for hosting".
                        r"((?:[\w-]+\s)?[\w-]+ing)\b)", re.IGNORECASE)  # fmt: skip

__all__ = [
    "ABOUT_ASSISTANT",
    "AFFIRMATIVE",
    "ASSISTANT_GUESS",
    "CHIT_CHAT",
    "CHOICE_CATEGORIES",
    "CLAUSE_END",
    "DIET_WORDS",
    "EN_RELATION_WORDS",
    "EN_REL_RE",
    "FIRST_PERSON",
    "FOR_TARGET",
    "HEDGE",
    "HYPOTHETICAL",
    "IMPERATIVES",
    "INSTRUCTION_MARKER",
    "LANGUAGE_NAMES",
    "LEAD_FILLER",
    "NAME",
    "NEGATION_NEAR",
    "NOT_ROLES",
    "NOT_TASKS",
    "OBJ",
    "PAST",
    "PETS",
    "PLACE",
    "QUESTION_START",
    "RELATIONS",
    "REL_RE",
    "REPORTED",
    "REST",
    "ROLE_SUFFIX",
    "SMALL_TALK",
]
