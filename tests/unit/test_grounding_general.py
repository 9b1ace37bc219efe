"""Generalisation of the extractor on hand-written sentences (none from the labelled set): facts, slots, negatives.

Each single sentence names the slot its fact must land in (a prefix ending in "." matches any slot under it, a
"kind:" entry a kind without a slot) or None for no fact at all; each correction pair is said in two sessions, and
the later fact must land in the slot of the earlier one, with a different value.
"""

from __future__ import annotations

import pytest

from memoryd.write.grounding import GroundedFact, SourceTurn, ground
from memoryd.write.grounding.text import light_stem, tokens

#: 2026-12-02, a Wednesday, 00:00 UTC; the correcting session is a week later.
SESSION_MS = 1_796_169_600_000
LATER_MS = SESSION_MS + 7 * 86_400_000

SINGLE: list[tuple[str, str | None]] = [
    # --- who the user is (en)
    ("My name is Daniel Okafor.", "identity.name"),
    ("Hi, I'm Rosalind.", "identity.name"),
    ("Everyone calls me Teddy, so please do too.", "identity.address_as"),
    ("Please call me Sam.", "identity.address_as"),
    ("I'm a nurse at St Mary's.", "identity.role"),
    ("I work as a data analyst.", "identity.role"),
    ("I'm a software engineer.", "identity.role"),
    ("I work at Shopify.", "identity.employer"),
    ("I work for Deloitte as an auditor.", "identity.employer"),
    ("I live in Glasgow.", "identity.home"),
    ("I'm based in Lisbon these days.", "identity.home"),
    ("I'm 34.", "identity.age"),
    ("I just turned 41 last week.", "identity.age"),
    ("I'm originally from Nairobi.", "identity.origin"),
    # --- who the user is (fr, es, de, pt)
    ("Je m'appelle Camille Moreau.", "identity.name"),
    ("J'habite à Nantes.", "identity.home"),
    ("Je travaille chez Airbus.", "identity.employer"),
    ("Je suis infirmière.", "identity.role"),
    ("J'ai 29 ans.", "identity.age"),
    ("Me llamo Lucía.", "identity.name"),
    ("Vivo en Sevilla.", "identity.home"),
    ("Trabajo en Telefónica.", "identity.employer"),
    ("Soy profesora de historia.", "identity.role"),
    ("Tengo 52 años.", "identity.age"),
    ("Ich heiße Jonas.", "identity.name"),
    ("Ich wohne in Hamburg.", "identity.home"),
    ("Ich arbeite bei Siemens.", "identity.employer"),
    ("Ich arbeite als Krankenpfleger.", "identity.role"),
    ("Ich bin 38 Jahre alt.", "identity.age"),
    ("Meu nome é Beatriz.", "identity.name"),
    ("Moro em Curitiba.", "identity.home"),
    ("Trabalho na Embraer.", "identity.employer"),
    ("Sou engenheira.", "identity.role"),
    ("Tenho 45 anos.", "identity.age"),
    # --- preferences and standing instructions
    ("I prefer tea over coffee.", "kind:preference"),
    ("I really hate cilantro.", "kind:preference"),
    ("I'm vegetarian.", "preference.diet"),
    ("I'm allergic to peanuts.", "allergy."),
    ("Always answer in bullet points.", "kind:instruction"),
    ("From now on, keep your answers under five sentences.", "kind:instruction"),
    ("Never use emojis in your replies.", "kind:instruction"),
    ("Je préfère le thé vert.", "kind:preference"),
    ("Réponds-moi toujours en français.", "instruction.language"),
    ("Prefiero el café solo.", "kind:preference"),
    ("Soy vegana.", "preference.diet"),
    ("Ich mag keine Pilze.", "kind:preference"),
    ("Ich bin Vegetarierin.", "preference.diet"),
    ("Prefiro chá a café.", "kind:preference"),
    ("Sou alérgica a camarão.", "allergy."),
    # --- people, pets, tools
    ("My manager is Helen.", "relation.manager"),
    ("My boss, Rafael, is great.", "relation.manager"),
    ("My wife Anna is a doctor.", "relation.partner"),
    ("We have a dog called Biscuit.", "pet."),
    ("Our cat Mochi is twelve.", "pet."),
    ("I use Obsidian for notes.", "tool."),
    ("Mon chef s'appelle Thierry.", "relation.manager"),
    ("Mi jefa es Carmen.", "relation.manager"),
    ("Meine Chefin heißt Petra.", "relation.manager"),
    ("Minha chefe é a Fernanda.", "relation.manager"),
    ("J'utilise Notion pour mes projets.", "tool."),
    # --- plans with dates
    ("The product launch is on March 14.", "plan:launch"),
    ("Our offsite is next Friday.", "plan:offsite"),
    ("I have a dentist appointment on Thursday.", "plan:appointment"),
    ("The board meeting is on January 20.", "plan:meeting"),
    ("The release ships on February 2.", "plan:release"),
    ("Le lancement est prévu le 10 mars.", "plan:lancement"),
    ("Mi vuelo sale el 15 de enero.", "plan:vuelo"),
    ("Die Konferenz ist am 3. Februar.", "plan:Konferenz"),
    ("A reunião é no dia 8 de janeiro.", "plan:reunião"),
    # --- decisions and action items
    ("We'll go with Postgres for the database.", "choice.database"),
    ("Let's use Figma for the design.", "choice.design"),
    ("We decided to use Linear for issue tracking.", "choice."),
    ("On part sur React pour le frontend.", "choice."),
    ("Vamos con AWS para el hosting.", "choice."),
    ("Wir nehmen Postgres als Datenbank.", "choice."),
    ("Vamos usar o Slack para a comunicação.", "choice."),
    ("I need to renew my passport.", "kind:action_item"),
    ("I have to send the invoice to the client.", "kind:action_item"),
    ("Je dois appeler le plombier.", "kind:action_item"),
    ("Tengo que pagar el alquiler.", "kind:action_item"),
    ("Ich muss die Steuererklärung machen.", "kind:action_item"),
    ("Preciso renovar o meu passaporte.", "kind:action_item"),
    # --- negatives: hypotheticals, other people, questions, small talk, assistant guesses
    ("If I lived in Paris I'd walk everywhere.", None),
    ("Imagine I was a pilot, what would my day look like?", None),
    ("My brother loves sushi.", None),
    ("My wife thinks I'm a workaholic.", None),
    ("Do you like jazz?", None),
    ("What's the capital of Peru?", None),
    ("Nice weather today, huh?", None),
    ("Thanks, that's helpful!", None),
    ("Ok cool.", None),
    ("Si j'étais riche, j'habiterais à Monaco.", None),
    ("¿Te gusta el fútbol?", None),
    ("Wenn ich Zeit hätte, würde ich Spanisch lernen.", None),
    ("Se eu fosse rico, morava em Sintra.", None),
    ("My friend says she's moving to Berlin.", None),
    ("Lol, that's funny.", None),
    ("Can you suggest a recipe for dinner?", None),
    ("Maybe I'll try yoga someday.", None),
    ("I don't know, what do you think?", None),
    ("Mi hermana vive en Madrid y le encanta el teatro.", "kind:relation-or-none"),
    ("Ma sœur adore le chocolat.", "kind:relation-or-none"),
]

#: (what was said first, the correction said a week later): the correction must land in the same slot.
CORRECTIONS: list[tuple[str, str]] = [
    ("The launch is on April 20.", "Actually the launch moved to May 3."),
    ("The launch is on April 20.", "We pushed the launch to May 12."),
    ("The launch is on April 20.", "The launch has been postponed to June 1."),
    ("The call with the client is on Friday at 3pm.", "Scratch that, the call is at 4pm on Friday."),
    ("The team offsite is on March 10.", "The offsite is now on March 17."),
    ("My dentist appointment is on Tuesday.", "The dentist appointment got moved to Thursday."),
    ("Le rendez-vous est le 5 mars.", "Le rendez-vous est décalé au 12 mars."),
    ("La réunion est prévue le 3 février.", "La réunion a été reportée au 10 février."),
    ("La entrega es el 20 de marzo.", "La entrega se ha pospuesto al 27 de marzo."),
    ("Die Präsentation ist am 4. März.", "Die Präsentation wurde auf den 11. März verschoben."),
    ("A apresentação é no dia 4 de março.", "A apresentação foi adiada para 11 de março."),
    ("I live in Manchester.", "I moved to Leeds."),
    ("I live in Manchester.", "We've just relocated to Bristol."),
    ("I live in Manchester.", "I'm living in York now."),
    ("J'habite à Lyon.", "J'ai déménagé à Bordeaux."),
    ("Vivo en Sevilla.", "Ya no vivo en Sevilla, ahora vivo en Bilbao."),
    ("Vivo en Sevilla.", "Me mudé a Valencia."),
    ("Ich wohne in Köln.", "Ich bin nach Leipzig gezogen."),
    ("Moro em Lisboa.", "Mudei-me para o Porto."),
    ("Moro em Lisboa.", "Agora moro em Coimbra."),
    ("My manager is Tom.", "My new manager is Priya."),
    ("My manager is Tom.", "Tom left, my manager is now Priya."),
    ("My boss is Tom.", "My boss is now Priya."),
    ("Mon chef s'appelle Thierry.", "Mon nouveau chef s'appelle Karim."),
    ("Mi jefe es Andrés.", "Mi nuevo jefe es Marcos."),
    ("Mein Chef heißt Stefan.", "Mein neuer Chef heißt Lukas."),
    ("O meu chefe é o Rui.", "O meu novo chefe é o Tiago."),
    ("I work at Google.", "I now work at Stripe."),
    ("I work at Google.", "I left Google and I work at Stripe now."),
    ("Je travaille chez Renault.", "Je travaille maintenant chez Peugeot."),
    ("Trabajo en Telefónica.", "Ahora trabajo en Iberdrola."),
    ("Ich arbeite bei Siemens.", "Ich arbeite jetzt bei Bosch."),
    ("Trabalho na Embraer.", "Agora trabalho na Petrobras."),
    ("I'm a teacher.", "I'm a school principal now."),
    ("I work as a data analyst.", "I work as a data scientist now."),
    ("I'm 34.", "I'm 35 now."),
    ("My name is Katherine.", "My name is Kate Ellis."),
    ("Please call me Kathy.", "Actually, call me Kate."),
    (
        "We'll go with Jira for issue tracking.",
        "We're not using Jira anymore, we switched to Linear for issue tracking.",
    ),
    ("We'll use MySQL for the database.", "We switched the database to Postgres."),
    ("Let's use Trello for the project board.", "Let's use Asana for the project board instead."),
    ("On part sur Vue pour le frontend.", "Finalement on part sur React pour le frontend."),
    ("Vamos con Heroku para el hosting.", "Al final vamos con AWS para el hosting."),
    ("Wir nehmen MySQL als Datenbank.", "Wir haben auf Postgres als Datenbank gewechselt."),
    ("Vamos usar o Teams para a comunicação.", "Agora vamos usar o Slack para a comunicação."),
    ("I use Evernote for notes.", "I use Obsidian for notes now."),
    ("Our vet is Dr Patel.", "We changed vets, the new one is Dr Moreno."),
    ("My partner is Alex.", "My partner is now Jordan."),
    ("I'm vegetarian.", "I'm vegan now."),
    ("My goal is to run a half marathon.", "My goal is now to run a full marathon."),
]


SINGLE += [
    # --- second batch, written after the first was read: other phrasings
    ("I'm Priya, a product designer at Figma.", "identity.name"),
    ("I'm Priya, a product designer at Figma.", "identity.employer"),
    ("Name's Jake, by the way.", "identity.name"),
    ("I go by Alex.", "identity.address_as"),
    ("Work-wise, I'm a backend developer at Monzo.", "identity.employer"),
    ("I've lived in Dublin for ten years.", "identity.home"),
    ("I'm from Lagos but I live in London.", "identity.home"),
    ("I'm from Lagos but I live in London.", "identity.origin"),
    ("Please don't use emojis.", "kind:instruction"),
    ("I can't eat gluten.", "kind:preference"),
    ("I'm lactose intolerant.", "diet."),
    ("My daughter Lily starts school on September 3.", "relation."),
    ("We got a puppy named Pixel.", "pet."),
    ("My therapist is Dr Lee.", "relation."),
    ("The deadline for the report is Friday.", "plan:deadline"),
    ("I'm flying to Tokyo on March 3.", "kind:plan"),
    ("Our wedding is on June 13.", "plan:wedding"),
    ("Moi c'est Inès, je suis développeuse.", "identity.name"),
    ("Je bosse chez Decathlon.", "identity.employer"),
    ("Je vis à Lille depuis 2019.", "identity.home"),
    ("Mon mari s'appelle Hugo.", "relation.partner"),
    ("Soy de Rosario pero vivo en Córdoba.", "identity.home"),
    ("Trabajo como enfermera en un hospital.", "identity.role"),
    ("Mi perro se llama Toby.", "pet."),
    ("Mein Name ist Anna Weber.", "identity.name"),
    ("Ich lebe seit drei Jahren in München.", "identity.home"),
    ("Unsere Katze heißt Luna.", "pet."),
    ("Chamo-me Joana e vivo em Braga.", "identity.home"),
    ("O meu gato chama-se Tobias.", "pet."),
    # negatives
    ("If the launch slips, we'll use Jira.", None),
    ("What if I moved to Berlin?", None),
    ("My colleague uses Notion for everything.", None),
    ("My manager thinks we should use Jira.", "kind:relation-or-none"),
    ("Would you recommend Postgres?", None),
    ("Haha no, I'm not a lawyer.", None),
    ("I'm not vegan.", None),
    ("I used to live in Paris.", None),
    ("I don't live in Madrid anymore.", None),
    ("Je ne suis pas végétarien.", None),
    ("No vivo en Madrid.", None),
    ("Ich wohne nicht in Berlin.", None),
    ("Não moro em Lisboa.", None),
    ("My sister lives in Oslo.", "kind:relation-or-none"),
    ("My dad used to work at Ford.", "kind:relation-or-none"),
    ("Should we go with Postgres or MySQL?", None),
    ("Good morning! How are you today?", None),
]
CORRECTIONS += [
    ("The launch is on April 20.", "Quick correction: the launch is on May 3, not April 20."),
    ("The workshop is on December 17.", "Change of plan: the workshop is on December 19 now."),
    ("Demo day is on January 14.", "Update: demo day got pushed back to January 21."),
    ("The kickoff is on Tuesday.", "Heads up, they moved the kickoff to Monday."),
    ("The deadline is on Wednesday.", "The deadline's been bumped to Friday."),
    ("The wedding is on June 13.", "Turns out the wedding is on June 6, not June 13."),
    ("The interview is on Tuesday.", "Ignore what I said about Tuesday, the interview is on Wednesday."),
    ("I work at Google.", "I don't work at Google anymore, I joined Stripe in October."),
    ("I work at Google.", "I've started a new job at Canva."),
    ("I work at Google.", "I'm now at Atlassian."),
    ("I live in Manchester.", "Just moved into a flat in Brighton."),
    ("I live in Manchester.", "New city: I live in Porto now."),
    ("My manager is Tom.", "Priya is my manager now."),
    ("My manager is Tom.", "I report to Priya now."),
    ("I'm a software engineer.", "I've been promoted to team lead."),
    ("I'm a software engineer.", "I'm now a senior engineer."),
    ("We'll use Jira for issue tracking.", "We're moving off Jira to Linear for issue tracking."),
    ("We'll use MySQL for the database.", "We replaced MySQL with Postgres for the database."),
    ("We'll use Heroku for hosting.", "Ditching Heroku, we're going with Fly for hosting."),
    ("La réunion est le 7 mars.", "Finalement la réunion sera le 14 mars."),
    ("J'habite à Lyon.", "Petite correction : j'habite à Grenoble maintenant."),
    ("Je travaille chez Renault.", "Je ne travaille plus chez Renault, je suis chez Stellantis."),
    ("Mon manager s'appelle Paul.", "Mon nouveau manager, c'est Julie."),
    ("Le lancement est le 20 mai.", "Le lancement a été repoussé au 2 juin."),
    ("La cena es el jueves.", "Cambio de planes: la cena es el viernes."),
    ("Vivo en Sevilla.", "Ahora vivo en Bilbao."),
    ("Trabajo en Telefónica.", "Ya no trabajo en Telefónica, ahora trabajo en BBVA."),
    ("Mi jefa es Carmen.", "Mi nueva jefa se llama Marta."),
    ("La boda es el 13 de junio.", "La boda se ha movido al 6 de junio."),
    ("La reunión es el lunes.", "Al final la reunión es el martes."),
    ("Das Meeting ist am Mittwoch.", "Korrektur: das Meeting ist am Donnerstag."),
    ("Ich wohne in Köln.", "Ich wohne jetzt in Leipzig."),
    ("Ich arbeite bei Siemens.", "Ich arbeite nicht mehr bei Siemens, sondern bei Bosch."),
    ("Mein Chef ist Stefan.", "Mein neuer Chef ist Lukas."),
    ("Der Termin ist am Montag.", "Der Termin wurde auf Freitag verschoben."),
    ("Ich wohne in Köln.", "Wir sind nach Dresden umgezogen."),
    ("Moro em Lisboa.", "Agora vivo no Porto."),
    ("Trabalho na Embraer.", "Já não trabalho na Embraer, agora trabalho na Vale."),
    ("A minha chefe é a Rita.", "A minha nova chefe é a Joana."),
    ("A reunião é na quarta-feira.", "A reunião passou para quinta-feira."),
    ("O lançamento é no dia 20 de abril.", "O lançamento foi remarcado para 3 de maio."),
]


SINGLE += [
    # --- third batch: precision traps (places, times, company, adjectives, others' facts, maybes)
    ("I'm 5 minutes away.", None),
    ("I'm 2 hours late for the train.", None),
    ("I'm in a meeting now.", None),
    ("I'm at the gym.", None),
    ("I'm 100% sure about that.", None),
    ("I'm a bit tired today.", None),
    # A weekly habit, read as "every Friday" is (distill40: English plural weekdays); never a workplace "home".
    ("I work from home on Fridays.", "routine."),
    ("I live in hope.", None),
    ("Call me when you can.", None),
    ("Call me on Tuesday.", None),
    ("I'm going with my sister.", None),
    ("We'll go with the flow.", None),
    ("I need to think about it.", None),
    ("Let's do it.", None),
    ("My manager is on holiday.", None),
    ("My boss is Italian.", None),
    ("I'm Italian.", None),
    ("My name is on the list.", None),
    ("I'm Spanish but I speak French.", None),
    ("I use it every day.", None),
    ("Maybe we'll use Postgres, not sure yet.", None),
    ("We might switch to Linear.", None),
    ("I'm thinking of moving to Leeds.", None),
    ("I could call you Teddy.", None),
    ("Should I move to Porto?", None),
    ("He lives in Paris.", None),
    ("They switched to Linear last year.", None),
    ("Ana's manager is Tom.", None),
    ("I don't use Jira.", None),
    ("I've never lived in Rome.", None),
    ("Je pense déménager à Lyon.", None),
    ("Peut-être qu'on utilisera Postgres.", None),
    ("Quizás me mude a Bilbao.", None),
    ("Vielleicht ziehe ich nach Berlin.", None),
    ("Talvez eu me mude para o Porto.", None),
    ("Mon frère travaille chez Renault.", None),
    ("Mi hermano vive en Sevilla.", None),
    ("Mein Bruder wohnt in Köln.", None),
    ("O meu irmão mora em Lisboa.", None),
    ("The movie starts at 8pm, you should watch it.", None),
    ("Did the launch move to May 3?", None),
    ("Is the meeting on Friday?", None),
    ("I joined a gym last week.", None),
    ("I joined Strava.", None),
    ("I'm now at the airport.", None),
    ("We replaced the batteries.", None),
    ("I've been living out of a suitcase.", None),
    ("I moved the couch to the living room.", None),
    ("I switched the lights off.", None),
]

CORRECTIONS += [
    # --- third batch: the correction phrased differently from the original
    ("We're launching the beta on March 3.", "The beta slipped to March 10."),
    ("My flight to Rome is on Friday.", "My flight got changed to Saturday."),
    ("Dinner with Sara is on Thursday.", "Dinner with Sara is now on Friday."),
    ("The kickoff meeting is on Monday.", "We moved the kickoff meeting to Tuesday."),
    ("The exam is on January 12.", "They rescheduled the exam for January 19."),
    ("Le dîner est jeudi.", "Le dîner est repoussé à vendredi."),
    ("El examen es el 12 de enero.", "Han cambiado el examen al 19 de enero."),
    ("Die Prüfung ist am 12. Januar.", "Die Prüfung ist jetzt am 19. Januar."),
    ("O exame é no dia 12 de janeiro.", "O exame passou para o dia 19 de janeiro."),
    ("I live in Manchester.", "These days I'm living in Leeds."),
    ("My manager is Tom.", "Tom moved teams, so Priya is my manager now."),
    ("I work at Google.", "I work for Stripe these days."),
    ("I'm vegetarian.", "I've gone vegan."),
    ("My name is Katherine.", "Actually, my name is Kate."),
    ("My partner is Alex.", "Alex and I split up; my partner is Jordan now."),
    ("Je suis développeur.", "Je suis maintenant architecte."),
    ("Soy profesor.", "Ahora soy director."),
    ("Ich bin Lehrer.", "Ich bin jetzt Schulleiter."),
    ("Sou professora.", "Agora sou diretora."),
    ("The launch is on April 20.", "Launch is May 3 now."),
    ("The deadline is on Friday.", "Deadline moved to Monday."),
    ("I'm 34.", "I turned 35 yesterday."),
    ("J'ai 29 ans.", "J'ai eu 30 ans."),
    ("Ich arbeite bei Siemens.", "Seit Oktober arbeite ich bei Bosch."),
    ("Vivo en Sevilla.", "Desde marzo vivo en Bilbao."),
    ("Mon chef s'appelle Thierry.", "Thierry est parti, ma nouvelle cheffe c'est Léa."),
    ("Wir nehmen MySQL als Datenbank.", "Als Datenbank nehmen wir jetzt Postgres."),
    ("Moro em Lisboa.", "Desde janeiro moro em Faro."),
    (
        "Je travaille chez Renault.",
        "J'ai rejoint Michelin le mois dernier, je travaille chez Michelin maintenant.",
    ),
    ("Mi jefe es Andrés.", "Ahora mi jefa es Lucía."),
]


SINGLE += [
    # --- fourth batch: jobs, households, habits and instructions said in other ways
    ("I'm a PhD student at Oxford.", "identity.role"),
    ("I've got two cats, Miso and Tofu.", "pet."),
    ("My husband's name is Diego.", "relation.partner"),
    ("My son Leo is 7.", "relation."),
    ("I'm flying out to Berlin next Tuesday for a conference.", "kind:plan"),
    ("Remind me to call mum on Sunday.", "kind:action_item"),
    ("Please reply in Spanish from now on.", "instruction.language"),
    ("I'd like you to be more concise from now on.", "kind:instruction"),
    ("Estoy trabajando como diseñadora en Madrid.", "identity.role"),
    ("Ich bin Softwareentwickler bei SAP.", "identity.employer"),
    ("Sou médica no Hospital de Santa Maria.", "identity.role"),
    ("My partner and I live in Bristol.", "identity.home"),
    ("Je travaille comme graphiste chez Ubisoft.", "identity.employer"),
    ("I'm a freelance translator based in Porto.", "identity.home"),
    ("I'm a freelance translator based in Porto.", "identity.role"),
    ("Our daughter Maya starts nursery on January 6.", "relation."),
    ("My go-to editor is Neovim.", "kind:preference"),
    ("I'm allergic to penicillin, so keep that in mind.", "allergy."),
    ("Ich trinke keinen Kaffee.", "kind:preference"),
    ("No como carne.", "kind:preference"),
    ("Não bebo álcool.", "kind:preference"),
    ("Je ne mange pas de porc.", "kind:preference"),
    ("Mi pareja se llama Julia.", "relation.partner"),
    ("Meine Frau heißt Sabine.", "relation.partner"),
    ("O meu marido chama-se Paulo.", "relation.partner"),
    ("Ma femme s'appelle Claire.", "relation.partner"),
    ("Our landlord is Mr Hughes.", "relation."),
    ("We're getting married on August 8.", "kind:plan"),
    ("Antworte mir bitte immer auf Deutsch.", "instruction.language"),
    ("Responde siempre en español, por favor.", "instruction.language"),
    ("Responde sempre em português.", "instruction.language"),
    ("Estoy trabajando como un loco.", None),
    ("Trabajo como nunca.", None),
    ("Je travaille comme un fou.", None),
    ("I'm a regular at Joe's.", None),
    ("I'm a customer at Monzo.", None),
    ("Ich bin Kunde bei der Telekom.", None),
    ("My husband's name is on the lease.", None),
]


CORRECTIONS += [
    # --- fifth batch: labels, spellings, 'no longer', progressive forms
    ("My name is Katherine.", "Correction: my name is spelled Katharine."),
    ("Call me Kathy.", "I'd rather you called me Kate."),
    ("I live in Manchester.", "I'm in Leeds now, we moved last month."),
    ("I live in Manchester.", "We relocated to Sheffield in the summer."),
    ("I'm 34.", "I'm actually 36."),
    ("I work at Google.", "I quit Google, I'm working at Monzo now."),
    ("I work as a data analyst.", "I'm now working as a product manager."),
    ("My manager is Tom.", "Tom's no longer my manager, it's Priya now."),
    ("My partner is Alex.", "My girlfriend is Sam."),
    ("Our vet is Dr Patel.", "Our new vet is Dr Moreno."),
    ("We'll go with Vercel for hosting.", "We've decided to use Netlify for hosting instead."),
    ("We'll use MySQL for the database.", "Decision: Postgres for the database."),
    ("The launch is on April 20.", "New launch date: May 3."),
    ("The launch is on April 20.", "The launch date is now May 3."),
    ("The launch is on April 20.", "We're launching on May 3 instead."),
    ("Our offsite is on March 10.", "Offsite's been moved to March 24."),
    ("The dentist appointment is on Tuesday.", "I rescheduled the dentist appointment to Thursday."),
    ("Le lancement est le 20 avril.", "Le lancement est maintenant le 3 mai."),
    ("J'habite à Lyon.", "Je vis maintenant à Nice."),
    ("Mon chef s'appelle Thierry.", "Mon chef, c'est désormais Karim."),
    ("La reunión es el lunes.", "Hemos movido la reunión al martes."),
    ("Mi jefe es Andrés.", "Ahora mi jefe es Marcos."),
    ("Vivo en Sevilla.", "Ahora estoy viviendo en Málaga."),
    ("Ich wohne in Köln.", "Mittlerweile wohne ich in Bonn."),
    ("Der Launch ist am 20. April.", "Der Launch ist jetzt am 3. Mai."),
    ("Mein Chef heißt Stefan.", "Mein Chef ist jetzt Lukas."),
    ("Moro em Lisboa.", "Estou a morar em Setúbal agora."),
    ("O meu chefe é o Rui.", "Agora o meu chefe é o Tiago."),
    ("Trabalho na Embraer.", "Mudei de emprego, agora trabalho na Natura."),
    ("I'm vegetarian.", "I'm pescatarian now."),
]

SINGLE += [
    ("I'm actually 5 minutes away.", None),
    ("I'm just 2 hours late.", None),
    ("My name is spelled with a K.", None),
    ("Je travaille beaucoup, je suis chez Paul ce soir.", None),
    ("I work out a lot, I joined Strava.", None),
    ("I joined Strava last week.", None),
]


def _facts(text: str, session_ms: int = SESSION_MS) -> list[GroundedFact]:
    """What is stored of a one-turn session: the extractor's facts that pass verification."""
    return list(ground([SourceTurn(0, 100, text, "Okay.")], None, session_time_ms=session_ms).facts)


def _matches(fact: GroundedFact, expected: str) -> bool:
    if expected.startswith("kind:"):
        return fact.kind.value == expected[5:]
    if expected.startswith("plan:"):  # the event's head noun, stemmed as slots are
        return fact.slot == f"plan.{light_stem(tokens(expected[5:])[0])}"
    return fact.slot.startswith(expected) if expected.endswith(".") else fact.slot == expected


def single_ok(text: str, expected: str | None) -> bool:
    facts = _facts(text)
    if expected is None:
        return not facts
    # Someone else's taste: at most a relation fact, never the user's liking.
    if expected == "kind:relation-or-none":
        return all(f.kind.value == "relation" for f in facts)
    return any(_matches(f, expected) for f in facts)


def correction_ok(first: str, later: str) -> bool:
    before = [f for f in _facts(first) if f.slot]
    after = [f for f in _facts(later, LATER_MS) if f.slot]
    if not before or not after:
        return False
    slot = before[-1].slot
    new = [f for f in after if f.slot == slot]
    return bool(new) and new[-1].value.casefold() != before[-1].value.casefold()


#: Cases the grammar does not read yet (kept visible so the share can be tracked, not hidden).
KNOWN_SINGLE: frozenset[str] = frozenset(
    {
        "I'd like you to be more concise from now on.",  # one content word: too little for the instruction rule
    }
)
KNOWN_CORRECTIONS: frozenset[str] = frozenset(
    {
        "I'm now at Atlassian.",  # "at X" is as often a place as an employer
    }
)


@pytest.mark.parametrize(("text", "expected"), SINGLE)
def test_single_sentence(text: str, expected: str | None) -> None:
    if text in KNOWN_SINGLE:
        pytest.xfail("not read yet")
    assert single_ok(text, expected), [(f.kind.value, f.slot, f.value) for f in _facts(text)]


@pytest.mark.parametrize(("first", "later"), CORRECTIONS)
def test_correction_lands_in_the_same_slot(first: str, later: str) -> None:
    if later in KNOWN_CORRECTIONS:
        pytest.xfail("not read yet")
    assert correction_ok(first, later), (
        [(f.slot, f.value) for f in _facts(first)],
        [(f.slot, f.value) for f in _facts(later, LATER_MS)],
    )


#: Whole sessions with chatter around the facts: what is stored, and what must not be.
SESSIONS: list[list[tuple[str, str]]] = [
    [
        ("Hey! So I've been meaning to sort out my week.", "Happy to help. What's on?"),
        ("Well, I'm Marta, I run the backend team at Cobalt Labs in Valencia.", "Nice to meet you, Marta."),
        (
            "The quarterly review is on December 15 and I still need to prepare slides.",
            "Shall we outline them?",
        ),
        ("Yes. Oh and my manager Jorge wants the numbers by Friday.", "Got it."),
        ("My colleague Ana thinks we should move to Kubernetes, I'm not sure.", "What are the trade-offs?"),
        ("If we had more people I'd do it, honestly.", "Makes sense."),
        ("Anyway, we'll stick with Nomad for the cluster this year.", "Noted."),
        ("Thanks, talk soon!", "Bye!"),
    ],
    [
        ("Petite question: tu connais des restos à Lille ?", "Quelques-uns, oui."),
        ("Je suis végétarienne, donc pas de viande.", "D'accord."),
        ("Mon copain Hugo adore les burgers par contre.", "Il y a des options pour les deux."),
        ("On a réservé pour samedi soir, c'est notre anniversaire.", "Félicitations !"),
        ("Ah et réponds-moi toujours en français stp.", "Bien sûr."),
        ("Tu crois que je devrais prendre un dessert ?", "Pourquoi pas !"),
        ("Bon, je file.", "À bientôt !"),
        ("Merci !", "De rien."),
    ],
    [
        ("Actually I need to correct something from last week.", "Sure."),
        ("We're not on Jira anymore, the team switched to Linear for issue tracking in November.", "Okay."),
        ("And the offsite moved to January 22.", "Updated."),
        ("Also I'm living in Leeds now, not Manchester.", "Noted."),
        ("My sister might visit in February, not sure yet.", "Nice."),
        ("Do you think Linear is better than Jira?", "It depends."),
        ("lol fair", "Anything else?"),
        ("No that's it, cheers.", "Bye."),
    ],
]


def _session(turns: list[tuple[str, str]]) -> list[GroundedFact]:
    source = [SourceTurn(i, 100 + i, user, reply) for i, (user, reply) in enumerate(turns)]
    return list(ground(source, None, session_time_ms=SESSION_MS).facts)


def test_a_work_session_keeps_the_facts_and_not_the_colleagues_opinion() -> None:
    facts = _session(SESSIONS[0])
    slots = {f.slot for f in facts}
    assert {"identity.name", "relation.manager", "choice.cluster"} <= slots
    assert not any("Kubernetes" in f.text or "people" in f.text for f in facts)


def test_a_french_session_keeps_the_users_diet_not_the_partners_taste() -> None:
    facts = _session(SESSIONS[1])
    assert {"preference.diet", "relation.partner", "instruction.language"} <= {f.slot for f in facts}
    assert not any("burger" in f.text for f in facts)


def test_a_correcting_session_yields_the_new_values_and_no_hedged_plan() -> None:
    facts = _session(SESSIONS[2])
    by_slot = {f.slot: f for f in facts}
    assert by_slot["identity.home"].value == "Leeds"
    assert "Linear" in by_slot["choice.issue_tracking"].text
    assert "plan.offsit" in by_slot  # the same slot as "the offsite is on …"
    assert not any("sister" in f.text or "something" in f.text or "2027-11" in f.text for f in facts)
