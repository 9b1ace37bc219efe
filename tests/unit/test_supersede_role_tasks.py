"""When a role changes hands, the old holder's tasks and plans go with the role (write/supersede.py): "send the
invoices to Ernesto" is no longer current once Marisa is the accountant; facts naming anyone else stay."""

from __future__ import annotations

from memoryd.write.grounding import FactKind, GroundedFact
from memoryd.write.store_protocol import ExistingFact
from memoryd.write.supersede import plan_grounded

POOL = [
    ExistingFact("1", "Gestor del usuario: Ernesto Lasheras.", 0.7, 1, "relation.accountant"),
    ExistingFact(
        "2", "Recordatorio pedido por el usuario: mandarle las facturas a Ernesto el lunes.", 0.7, 1, ""
    ),
    ExistingFact("3", "Recordatorio pedido por el usuario: llamar a Yeray el lunes.", 0.7, 1, ""),
    ExistingFact("4", "Plan: el taller cierra en agosto.", 0.7, 1, "plan.taller"),
]


def _retired(fact: GroundedFact) -> set[str]:
    plan = plan_grounded([fact], POOL, [], lambda idx: tuple(idx))
    return {i for new in plan.facts.inserts for i in new.supersedes}


def test_the_old_holders_task_goes_with_the_role() -> None:
    new = GroundedFact(
        FactKind.RELATION,
        "Gestora del usuario: Marisa Ortún.",
        "relation.accountant",
        "Marisa Ortún",
        (0,),
        0.8,
        False,
    )
    assert _retired(new) == {"1", "2"}


def test_a_fact_without_a_role_slot_retires_no_task() -> None:
    new = GroundedFact(
        FactKind.PLAN, "Plan: Marisa Ortún empieza el lunes.", "", "Marisa Ortún", (0,), 0.7, False
    )
    assert _retired(new) == set()


def test_a_relation_noun_opening_the_old_fact_is_no_name_of_the_holder() -> None:
    # "Médico do usuário: Dr. Costa." names Dr. Costa, not "Médico": a plan naming only "meu médico" stays.
    pool = [
        ExistingFact("1", "Médico do usuário: Dr. Costa.", 0.7, 1, "relation.doctor"),
        ExistingFact(
            "2", "Planejado: meu médico tenho consulta no dia 5 de fevereiro.", 0.7, 1, "plan.medico"
        ),
        ExistingFact("3", "Planejado: levar os exames ao Dr. Costa no dia 5.", 0.7, 1, "plan.exames"),
    ]
    new = GroundedFact(
        FactKind.RELATION, "Médica do usuário: Dra. Sousa.", "relation.doctor", "Dra. Sousa", (0,), 0.8, False
    )
    plan = plan_grounded([new], pool, [], lambda idx: tuple(idx))
    assert {i for n in plan.facts.inserts for i in n.supersedes} == {"1", "3"}
