"""Build the life-domain prototypes the evidence gate reads (memoryd/retrieval/domain_prototypes_v1.json).

Each domain is described by a few short phrases in each of our five languages (DESCRIPTIONS below, written for
this file, not taken from any gate set); every phrase is embedded with inferd's own all-MiniLM-L6-v2 on the path a
search query takes (bench/gate_query_vectors.embed), and a domain's prototype is the normalised mean of its phrases'
unit vectors. The file carries the model id, so a store embedded with another model gets no domain evidence.

Run: `python -m bench.build_domains` (about 10 s).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from memoryd.retrieval.domains import DEFAULT_PATH, MODEL

#: domain → phrases (en, fr, es, de, pt).
DESCRIPTIONS: dict[str, tuple[str, ...]] = {
    "food": (
        "food, cooking, recipes, meals, dinner, diet, vegetarian, vegan, snacks, restaurants",
        "nourriture, cuisine, recettes, repas, dîner, régime, végétarien, restaurant",
        "comida, cocina, recetas, cena, dieta, vegetariano, restaurante",
        "Essen, Kochen, Rezepte, Abendessen, Ernährung, vegetarisch, Restaurant",
        "comida, cozinha, receitas, jantar, dieta, vegetariano, restaurante",
    ),
    "health": (
        "health, allergies, doctor, medicine, illness, symptoms, pain, medication, hospital",
        "santé, allergie, médecin, médicament, maladie, douleur, hôpital",
        "salud, alergia, médico, medicamento, enfermedad, dolor, hospital",
        "Gesundheit, Allergie, Arzt, Medikament, Krankheit, Schmerzen, Krankenhaus",
        "saúde, alergia, médico, remédio, doença, dor, hospital",
    ),
    "fitness": (
        "exercise, workout, running, gym, training, sport, yoga, hiking, cycling",
        "exercice, entraînement, course à pied, salle de sport, yoga, randonnée, vélo",
        "ejercicio, entrenamiento, correr, gimnasio, yoga, senderismo, bicicleta",
        "Sport, Training, Laufen, Fitnessstudio, Yoga, Wandern, Radfahren",
        "exercício, treino, corrida, academia, ioga, trilha, bicicleta",
    ),
    "travel": (
        "travel, trip, commute, train, flight, booking, hotel, holiday, car, bus",
        "voyage, trajet, train, vol, réservation, hôtel, vacances, voiture",
        "viaje, trayecto, tren, vuelo, reserva, hotel, vacaciones, coche",
        "Reise, Pendeln, Zug, Flug, Buchung, Hotel, Urlaub, Auto",
        "viagem, trajeto, trem, voo, reserva, hotel, férias, carro",
    ),
    "work": (
        "work, job, office, meeting, deadline, project, report, colleague, manager, schedule",
        "travail, emploi, bureau, réunion, échéance, projet, rapport, collègue",
        "trabajo, empleo, oficina, reunión, plazo, proyecto, informe, colega",
        "Arbeit, Job, Büro, Besprechung, Frist, Projekt, Bericht, Kollege",
        "trabalho, emprego, escritório, reunião, prazo, projeto, relatório, colega",
    ),
    "family": (
        "family, partner, children, kids, parents, friends, wedding, birthday, relatives",
        "famille, partenaire, enfants, parents, amis, mariage, anniversaire",
        "familia, pareja, hijos, niños, padres, amigos, boda, cumpleaños",
        "Familie, Partner, Kinder, Eltern, Freunde, Hochzeit, Geburtstag",
        "família, parceiro, filhos, crianças, pais, amigos, casamento, aniversário",
    ),
    "pets": (
        "pets, dog, cat, vet, puppy, walking the dog, pet food",
        "animaux de compagnie, chien, chat, vétérinaire, chiot",
        "mascotas, perro, gato, veterinario, cachorro",
        "Haustiere, Hund, Katze, Tierarzt, Welpe",
        "animais de estimação, cachorro, gato, veterinário, filhote",
    ),
    "home": (
        "home, house, apartment, rent, garden, repairs, furniture, moving house, neighbours",
        "maison, appartement, loyer, jardin, réparations, meubles, déménagement",
        "casa, piso, alquiler, jardín, reparaciones, muebles, mudanza",
        "Haus, Wohnung, Miete, Garten, Reparaturen, Möbel, Umzug",
        "casa, apartamento, aluguel, jardim, reparos, móveis, mudança",
    ),
    "money": (
        "money, budget, savings, bank, bills, salary, expenses, taxes, prices",
        "argent, budget, épargne, banque, factures, salaire, dépenses, impôts",
        "dinero, presupuesto, ahorros, banco, facturas, salario, gastos, impuestos",
        "Geld, Budget, Ersparnisse, Bank, Rechnungen, Gehalt, Ausgaben, Steuern",
        "dinheiro, orçamento, poupança, banco, contas, salário, despesas, impostos",
    ),
    "hobbies": (
        "hobbies, music, reading books, films, games, painting, photography, guitar, crafts",
        "loisirs, musique, lecture, films, jeux, peinture, photographie, guitare",
        "aficiones, música, lectura, películas, juegos, pintura, fotografía, guitarra",
        "Hobbys, Musik, Lesen, Filme, Spiele, Malen, Fotografie, Gitarre",
        "hobbies, música, leitura, filmes, jogos, pintura, fotografia, violão",
    ),
    "tech": (
        "technology, computer, software, code, programming, laptop, phone, apps, tools",
        "technologie, ordinateur, logiciel, code, programmation, téléphone, outils",
        "tecnología, ordenador, software, código, programación, teléfono, herramientas",
        "Technik, Computer, Software, Code, Programmierung, Handy, Werkzeuge",
        "tecnologia, computador, software, código, programação, celular, ferramentas",
    ),
    "learning": (
        "learning, studying, course, school, university, exam, language lessons, teacher",
        "apprentissage, études, cours, école, université, examen, professeur",
        "aprendizaje, estudiar, curso, escuela, universidad, examen, profesor",
        "Lernen, Studium, Kurs, Schule, Universität, Prüfung, Lehrer",
        "aprendizagem, estudar, curso, escola, universidade, prova, professor",
    ),
}


def build(out: Path) -> None:
    """Embed the descriptions and write the prototypes file."""
    from bench.gate_query_vectors import embed
    from memoryd.vectors.embedding import normalise_query

    names = list(DESCRIPTIONS)
    prototypes = []
    for name in names:
        vectors = embed([normalise_query(text) for text in DESCRIPTIONS[name]]).astype(np.float64)
        mean = vectors.mean(axis=0)
        prototypes.append(mean / np.linalg.norm(mean))
    body = {
        "version": "domains-v1",
        "model": MODEL,
        "domains": names,
        "descriptions": {name: list(DESCRIPTIONS[name]) for name in names},
        "vectors": [[round(float(v), 6) for v in row] for row in prototypes],
        "script": "bench/build_domains.py",
    }
    out.write_text(json.dumps(body, ensure_ascii=False) + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_PATH)
    args = parser.parse_args(argv)
    build(args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
