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
