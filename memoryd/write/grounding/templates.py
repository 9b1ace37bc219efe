"""Fact sentences per language: a standalone sentence about the user built around the user's own words."""

from __future__ import annotations

from memoryd.write.grounding.text import tokens

_T: dict[str, dict[str, str]] = {
    "name": {"en": "The user's name is {v}.", "fr": "L'utilisateur s'appelle {v}.", "es": "El usuario se llama {v}.",
             "de": "Der Nutzer heißt {v}.", "pt": "O usuário se chama {v}."},
    "address_as": {"en": "The user wants to be called {v}.", "fr": "L'utilisateur veut être appelé {v}.",
                   "es": "El usuario quiere que lo llamen {v}.", "de": "Der Nutzer möchte {v} genannt werden.",
                   "pt": "O usuário quer ser chamado de {v}."},
    "home": {"en": "The user lives in {v}.", "fr": "L'utilisateur habite à {v}.", "es": "El usuario vive en {v}.",
             "de": "Der Nutzer wohnt in {v}.", "pt": "O usuário mora em {v}."},
    "moved": {"en": "The user moved to {v}.", "fr": "L'utilisateur a déménagé à {v}.",
              "es": "El usuario se mudó a {v}.", "de": "Der Nutzer ist nach {v} gezogen.",
              "pt": "O usuário se mudou para {v}."},
    "origin": {"en": "The user is from {v}.", "fr": "L'utilisateur vient de {v}.", "es": "El usuario es de {v}.",
               "de": "Der Nutzer kommt aus {v}.", "pt": "O usuário é de {v}."},
    "age": {"en": "The user is {v} years old.", "fr": "L'utilisateur a {v} ans.", "es": "El usuario tiene {v} años.",
            "de": "Der Nutzer ist {v} Jahre alt.", "pt": "O usuário tem {v} anos."},
    "role": {"en": "The user is {v}.", "fr": "L'utilisateur est {v}.", "es": "El usuario es {v}.",
             "de": "Der Nutzer ist {v}.", "pt": "O usuário é {v}."},
    "works_as": {"en": "The user works as {v}.", "fr": "L'utilisateur travaille comme {v}.",
                 "es": "El usuario trabaja como {v}.", "de": "Der Nutzer arbeitet als {v}.",
                 "pt": "O usuário trabalha como {v}."},
    "runs": {"en": "The user runs {v}.", "fr": "L'utilisateur tient {v}.", "es": "El usuario lleva {v}.",
             "de": "Der Nutzer führt {v}.", "pt": "O usuário administra {v}."},
    "leads": {"en": "The user leads {v}.", "fr": "L'utilisateur dirige {v}.", "es": "El usuario dirige {v}.",
              "de": "Der Nutzer leitet {v}.", "pt": "O usuário lidera {v}."},
    "works_in": {"en": "The user works {v}.", "fr": "L'utilisateur travaille {v}.", "es": "El usuario trabaja {v}.",
                 "de": "Der Nutzer arbeitet {v}.", "pt": "O usuário trabalha {v}."},
    "employer": {"en": "The user works at {v}.", "fr": "L'utilisateur travaille chez {v}.",
                 "es": "El usuario trabaja en {v}.", "de": "Der Nutzer arbeitet bei {v}.",
                 "pt": "O usuário trabalha na {v}."},
    "pronouns": {"en": "The user's pronouns are {v}.", "fr": "Les pronoms de l'utilisateur sont {v}.",
                 "es": "Los pronombres del usuario son {v}.", "de": "Die Pronomen des Nutzers sind {v}.",
                 "pt": "Os pronomes do usuário são {v}."},
    "tool": {"en": "The user uses {v}{what}.", "fr": "L'utilisateur utilise {v}{what}.", "es": "El usuario usa {v}{what}.",
             "de": "Der Nutzer verwendet {v}{what}.", "pt": "O usuário usa {v}{what}."},
    "pref": {"en": "{verb} {v}.", "fr": "{verb} {v}.", "es": "{verb} {v}.", "de": "{verb} {v}.", "pt": "{verb} {v}."},
    "favorite": {"en": "The user's favourite {what} is {v}.", "fr": "{What} préféré(e) de l'utilisateur : {v}.",
                 "es": "{What} favorito del usuario: {v}.", "de": "Lieblings{what} des Nutzers: {v}.",
                 "pt": "{What} favorito do usuário: {v}."},
    "diet": {"en": "The user is {v}.", "fr": "L'utilisateur est {v}.", "es": "El usuario es {v}.",
             "de": "Der Nutzer ist {v}.", "pt": "O usuário é {v}."},
    "no_eat": {"en": "The user doesn't eat {v}.", "fr": "L'utilisateur ne mange pas {v}.",
               "es": "El usuario no come {v}.", "de": "Der Nutzer isst {v} nicht.", "pt": "O usuário não come {v}."},
    "allergy": {"en": "The user is allergic to {v}.", "fr": "L'utilisateur est allergique {v}.",
                "es": "El usuario es alérgico a {v}.", "de": "Der Nutzer ist allergisch gegen {v}.",
                "pt": "O usuário é alérgico a {v}."},
    "instruction": {"en": "Standing instruction from the user: {v}.", "fr": "Consigne permanente de l'utilisateur : {v}.",
                    "es": "Instrucción permanente del usuario: {v}.", "de": "Ständige Anweisung des Nutzers: {v}.",
                    "pt": "Instrução permanente do usuário: {v}."},
    "relation": {"en": "The user's {rel} is {v}.", "fr": "{Rel} de l'utilisateur : {v}.",
                 "es": "{Rel} del usuario: {v}.", "de": "{Rel} des Nutzers: {v}.", "pt": "{Rel} do usuário: {v}."},
    "pet": {"en": "The user has a {rel} named {v}.", "fr": "{Rel} de l'utilisateur : {v}.",
            "es": "{Rel} del usuario: {v}.", "de": "{Rel} des Nutzers: {v}.", "pt": "{Rel} do usuário: {v}."},
    "decision": {"en": "The user decided {v}.", "fr": "Décision de l'utilisateur : {v}.",
                 "es": "Decisión del usuario: {v}.", "de": "Entscheidung des Nutzers: {v}.",
                 "pt": "Decisão do usuário: {v}."},
    "chose": {"en": "The user chose {v}.", "fr": "Décision de l'utilisateur : {v}.", "es": "Decisión del usuario: {v}.",
              "de": "Entscheidung des Nutzers: {v}.", "pt": "Decisão do usuário: {v}."},
    "action": {"en": "The user needs to {v}.", "fr": "À faire pour l'utilisateur : {v}.",
               "es": "Tarea del usuario: {v}.", "de": "Aufgabe des Nutzers: {v}.", "pt": "Tarefa do usuário: {v}."},
    "remind": {"en": "The user asked to be reminded to {v}.", "fr": "Rappel demandé par l'utilisateur : {v}.",
               "es": "Recordatorio pedido por el usuario: {v}.", "de": "Erinnerung für den Nutzer: {v}.",
               "pt": "Lembrete pedido pelo usuário: {v}."},
    "target": {"en": "The user's goal: {v}.", "fr": "Objectif de l'utilisateur : {v}.", "es": "Objetivo del usuario: {v}.",
               "de": "Ziel des Nutzers: {v}.", "pt": "Objetivo do usuário: {v}."},
    "on_shift": {"en": "The user works the {v} shift."},
    "shift": {"en": "The user works {v}.", "fr": "L'utilisateur travaille {v}.", "es": "El usuario trabaja {v}.",
              "de": "Der Nutzer arbeitet {v}.", "pt": "O usuário trabalha {v}."},
    "plan": {"en": "{v}.", "fr": "Prévu : {v}.", "es": "Plan: {v}.", "de": "Geplant: {v}.", "pt": "Planejado: {v}."},
    "confirmed": {"en": "The user is {v}.", "fr": "L'utilisateur est {v}.", "es": "El usuario es {v}.",
                  "de": "Der Nutzer ist {v}.", "pt": "O usuário é {v}."},
}  # fmt: skip

#: The preposition a town takes after "works" per language ("works in Fulda", "travaille à Lyon", "trabaja en
#: Valencia", "arbeitet in Kiel", "trabalha em Braga"): the town of a job held (grounding/structure.py).
TOWN_OF_WORK = {"en": "in", "fr": "à", "es": "en", "de": "in", "pt": "em"}

#: Words the templates add that only frame a fact ("standing instruction", "years old"): not checked for support.
TEMPLATE_WORDS = frozenset(
    tokens(
        "user user's utilisateur usuario nutzer nutzers usuário standing instruction consigne permanente instrucción "
        "ständige anweisung instrução years old ans años jahre alt anos named genannt goal objectif objetivo ziel "
        "faire tarea aufgabe tarefa decision décision decisión entscheidung decisão decided prévu plan geplant "
        "planejado reminded rappel demandé recordatorio pedido erinnerung lembrete pelo pour por für wants veut "
        "quiere möchte quer être ser werden llamen chamado appelé favourite favorite préféré favorito lieblings "
        "asked needs chose chosen choose picked selected opted settled plans planned planning wanted requested "
        "shared explained described considered compared agreed confirmed choisi décidé demandé elegido eligió "
        "decidió pidió gewählt entschieden gefragt escolheu decidiu pediu uses utilise usa verwendet name nom nombre appelle llama heisst chama works travaille trabaja arbeitet trabalha has have "
        "shift runs tient lleva führt administra"
    )
)


def render(key: str, lang: str, value: str, **parts: str) -> str:
    """The fact sentence of template `key` in `lang` (English when the language has none)."""
    by_lang = _T[key]
    template = by_lang.get(lang, by_lang["en"])
    extra = {**parts, **{name.capitalize(): text[:1].upper() + text[1:] for name, text in parts.items()}}
    sentence = template.format(v=value, **extra)
    return sentence[:1].upper() + sentence[1:]


__all__ = ["TEMPLATE_WORDS", "TOWN_OF_WORK", "render"]
