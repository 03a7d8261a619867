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

_Evolve = Callable[..., Any]
#: per class and per tuple of changed names, the generated copier (a state class is evolved
#: with a few dozen distinct sets of changes, so this stays small)
_MADE: dict[tuple[type, tuple[str, ...]], _Evolve] = {}
_new: Any = object.__new__


def _plain_fields(cls: type) -> frozenset[str] | None:
    """The field names of a dataclass that ``replace`` may copy by its instance dict alone."""
    fields = dataclasses.fields(cls)
    if (getattr(cls, "__slots__", None) is not None or hasattr(cls, "__post_init__")
            or cls.__new__ is not _new
            or any(not f.init for f in fields) or _has_initvars(cls)):
        return None
    return frozenset(f.name for f in fields)


class _Plain(dict[type, "frozenset[str] | None"]):
    """Per class: its field names when :func:`_plain_fields` allows the dict copy, else None
    (computed on first use)."""

    def __missing__(self, cls: type) -> frozenset[str] | None:
        names = self[cls] = _plain_fields(cls)
        return names


_PLAIN = _Plain()


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of the dataclass instance ``obj`` with ``changes`` (see the module docstring)."""
    cls = type(obj)
    names = _PLAIN[cls]
    if names is not None and changes.keys() <= names:
        # The state classes (instance dict, no __post_init__, every field in __init__): the
        # copy is built right here, without a second pass through the keyword arguments.
        n: Any = _new(cls)
        d = n.__dict__
        d.update(obj.__dict__)
        d.update(changes)
        return n  # type: ignore[no-any-return]
    key = (cls, tuple(changes))
    evolve = _MADE.get(key)
    if evolve is None:
        evolve = _MADE[key] = _make(*key)
    result: T = evolve(obj, **changes)
    return result


def _make(cls: type, changed: tuple[str, ...]) -> _Evolve:
    fields = dataclasses.fields(cls)
    names = [f.name for f in fields]
    unknown = [n for n in changed if n not in names or not _init(fields, n)]
    if unknown:
        raise TypeError(f"{cls.__name__}.__init__() got an unexpected keyword argument "
                        f"'{unknown[0]}'")
    if any(not f.init for f in fields) or _has_initvars(cls) or cls.__new__ is not _new:
        # (a class with its own __new__, e.g. the interned Tile, is built by its constructor)
        return lambda obj, **ch: dataclasses.replace(obj, **ch)
    if getattr(cls, "__slots__", None) is None:
        return _by_dict(cls)
    setters = [getattr(getattr(cls, name, None), "__set__", None) for name in names]
    if any(s is None for s in setters):
        # not a plain slotted dataclass: the standard library's replace is the definition
        return lambda obj, **ch: dataclasses.replace(obj, **ch)
    env: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    params = "".join(f", {n}" for n in changed)
    lines = [f"def evolve(_o_{params}):", "    _n_ = _new(_cls)"]
    for i, name in enumerate(names):
        env[f"_s{i}"] = setters[i]
        value = name if name in changed else f"_o_.{name}"
        lines.append(f"    _s{i}(_n_, {value})")
    if hasattr(cls, "__post_init__"):
        lines.append("    _n_.__post_init__()")
    lines.append("    return _n_")
    exec("\n".join(lines), env)
    made: _Evolve = env["evolve"]
    return made


def _by_dict(cls: type) -> _Evolve:
    """For a class without slots: the instance dict copied whole, then the changes."""
    new = object.__new__
    post = getattr(cls, "__post_init__", None)

    def evolve(_o_: Any, **changes: Any) -> Any:
        n: Any = new(cls)
        d = n.__dict__
        d.update(_o_.__dict__)
        d.update(changes)
        if post is not None:
            post(n)
        return n

    return evolve


def _init(fields: tuple[dataclasses.Field[Any], ...], name: str) -> bool:
    return any(f.name == name and f.init for f in fields)


def _has_initvars(cls: type) -> bool:
    hints = getattr(cls, "__dataclass_fields__", {})
    return any(f._field_type is dataclasses._FIELD_INITVAR  # type: ignore[attr-defined]
               for f in hints.values())
