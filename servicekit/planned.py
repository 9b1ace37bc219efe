"""Marks contract RPCs that a servicer does not implement yet: they answer UNIMPLEMENTED / NOT_YET_AVAILABLE."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from servicekit.errors import not_yet_available

T = TypeVar("T", bound=type)

#: Attribute listing the RPC names a servicer class left to the planned stub.
PLANNED_ATTR = "__planned_rpcs__"


def planned_rpcs(generated_base: type, service_name: str) -> Callable[[T], T]:
    """Class decorator: every RPC of `generated_base` the class does not define raises not_yet_available.

    The generated base answers a bare UNIMPLEMENTED without ErrorInfo; this gives clients a reason to switch on.
    """

    def decorate(cls: T) -> T:
        planned: list[str] = []
        for name, member in vars(generated_base).items():
            if name.startswith("_") or not callable(member):
                continue
            if getattr(cls, name) is member:
                planned.append(name)
                setattr(cls, name, _stub(f"{service_name}/{name}"))
        setattr(cls, PLANNED_ATTR, tuple(sorted(planned)))
        return cls

    return decorate


def _stub(rpc: str) -> Callable[..., Any]:
    def planned(self: object, request: Any, context: Any) -> Any:
        raise not_yet_available(rpc)

    planned.__name__ = rpc.rsplit("/", 1)[-1]
    planned.__is_planned__ = True  # type: ignore[attr-defined]
    return planned


def still_planned(servicer: object) -> tuple[str, ...]:
    """RPC names that still answer NOT_YET_AVAILABLE on this servicer (subclasses and mixins may serve them)."""
    cls = type(servicer)
    names = getattr(cls, PLANNED_ATTR, ())
    return tuple(name for name in names if getattr(getattr(cls, name, None), "__is_planned__", False))
