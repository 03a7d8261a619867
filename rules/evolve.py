"""``replace`` for the rules' frozen, slotted dataclasses: the same result as
:func:`dataclasses.replace`, several times faster.

Every input folds the table state into a new value with a handful of ``replace`` calls, and the
state classes have tens of fields: :func:`dataclasses.replace` rebuilds the keyword arguments and
runs the generated ``__init__`` for each, which was half the time of a replay (issue 20). Here
each class gets, once, a generated function that copies the slots straight into a new instance
(the slot descriptors' own ``__set__``, as the frozen ``__init__`` does with
``object.__setattr__``) and then runs ``__post_init__`` where the class has one, so validation
and derived fields behave exactly as with :func:`dataclasses.replace`. A name that is not a field
is refused with the same ``TypeError``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_Evolve = Callable[[Any, dict[str, Any]], Any]
_MADE: dict[type, tuple[_Evolve, frozenset[str]]] = {}


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of the dataclass instance ``obj`` with ``changes`` (see the module docstring)."""
    cls = type(obj)
    made = _MADE.get(cls)
    if made is None:
        made = _MADE[cls] = _make(cls)
    evolve, names = made
    if not changes.keys() <= names:
        unknown = sorted(set(changes) - names)[0]
        raise TypeError(f"{cls.__name__}.__init__() got an unexpected keyword argument "
                        f"'{unknown}'")
    result: T = evolve(obj, changes)
    return result


def _make(cls: type) -> tuple[_Evolve, frozenset[str]]:
    fields = dataclasses.fields(cls)
    slots = getattr(cls, "__slots__", None)
    if slots is None or any(not f.init for f in fields) or _has_initvars(cls):
        # not a plain slotted dataclass: the standard library's replace is the definition
        return (lambda obj, ch: dataclasses.replace(obj, **ch)), frozenset(
            f.name for f in fields if f.init)
    names = [f.name for f in fields]
    setters = [getattr(getattr(cls, name, None), "__set__", None) for name in names]
    if any(s is None for s in setters):
        return (lambda obj, ch: dataclasses.replace(obj, **ch)), frozenset(names)
    env: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    lines = ["def evolve(obj, ch):", "    new = _new(_cls)", "    get = ch.get"]
    for i, name in enumerate(names):
        env[f"_s{i}"] = setters[i]
        lines.append(f"    _s{i}(new, get({name!r}, obj.{name}))")
    if hasattr(cls, "__post_init__"):
        lines.append("    new.__post_init__()")
    lines.append("    return new")
    exec("\n".join(lines), env)
    return env["evolve"], frozenset(names)


def _has_initvars(cls: type) -> bool:
    hints = getattr(cls, "__dataclass_fields__", {})
    return any(f._field_type is dataclasses._FIELD_INITVAR  # type: ignore[attr-defined]
               for f in hints.values())
