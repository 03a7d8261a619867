"""``replace`` for the rules' frozen, slotted dataclasses: the same result as
:func:`dataclasses.replace`, several times faster.

Every input folds the table state into a new value with a handful of ``replace`` calls, and the
state classes have tens of fields: :func:`dataclasses.replace` rebuilds the keyword arguments and
runs the generated ``__init__`` for each, which was half the time of a replay. Here
the three state classes (``TableState``, ``HandState``, ``SeatState``: no slots, no
``__post_init__``) are copied by their instance dict (one C copy and update); every other class
gets, once, a generated function that copies the slots straight into a new instance (the slot
descriptors' own ``__set__``, as the frozen ``__init__`` does with ``object.__setattr__``) and
then runs ``__post_init__`` where the class has one, so validation and derived fields behave
exactly as with :func:`dataclasses.replace`. A class with its own ``__new__`` (the interned
``Tile``) goes through :func:`dataclasses.replace`, i.e. its constructor. A name that is not a
field is refused with the same ``TypeError``.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Iterable
from typing import Any, ParamSpec, TypeVar

from rules.errors import FieldError

T = TypeVar("T")
P = ParamSpec("P")

_Evolve = Callable[..., Any]
#: per class and per tuple of changed names, the generated copier (a state class is evolved
#: with a few dozen distinct sets of changes, so this stays small)
_MADE: dict[tuple[type, tuple[str, ...]], _Evolve] = {}
_new: Any = object.__new__


def _plain_fields(cls: type) -> bool:
    """May ``replace`` copy an instance of the dataclass ``cls`` by its instance dict alone?"""
    fields = dataclasses.fields(cls)
    return not (getattr(cls, "__slots__", None) is not None or hasattr(cls, "__post_init__")
                or cls.__new__ is not _new
                or any(not f.init for f in fields) or _has_initvars(cls))


class _Plain(dict[type, bool]):
    """Per class: :func:`_plain_fields`, computed on first use."""

    def __missing__(self, cls: type) -> bool:
        plain = self[cls] = _plain_fields(cls)
        return plain


_PLAIN = _Plain()
_set = object.__setattr__


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of the dataclass instance ``obj`` with ``changes`` (see the module docstring)."""
    cls = type(obj)
    if _PLAIN[cls]:
        # The state classes (instance dict, no __post_init__, every field in __init__): the
        # copy is the instance dict copied and updated, built right here. The dict holds every
        # field and nothing else, so a name that is not a field makes it longer: that one goes
        # the general way below, which refuses it.
        old = obj.__dict__
        d = old.copy()
        d.update(changes)
        if len(d) == len(old):
            n: Any = _new(cls)
            _set(n, "__dict__", d)
            return n  # type: ignore[no-any-return]
    key = (cls, tuple(changes))
    evolve = _MADE.get(key)
    if evolve is None:
        evolve = _MADE[key] = _make(*key)
    result: T = evolve(obj, **changes)
    return result


def rebuilt(obj: T, fields: dict[str, Any]) -> T:
    """A new instance of ``obj``'s class whose instance dict is ``fields``: ``vars(obj).copy()``
    with some of its fields changed, for a state class (``TableState``, ``HandState``,
    ``SeatState``: every field in the instance dict). What :func:`replace` makes, without the
    keyword dict that ``replace`` is called with, which costs as much again as the copy: the
    reducer's hottest copies (each draw and discard) take this way. A name that is not a field
    of the class is refused (the dict would be longer)."""
    cls = obj.__class__
    if len(fields) != len(obj.__dict__) or not _PLAIN[cls]:
        unknown = sorted(set(fields) - set(obj.__dict__))
        raise FieldError(f"{cls.__name__}: not a field, or not a state class: {unknown}")
    n: Any = _new(cls)
    _set(n, "__dict__", fields)
    return n  # type: ignore[no-any-return]


#: :func:`rebuilt` without the call, for the reducer's hottest copies (each draw and discard
#: makes three): ``obj = NEW(cls); SET_DICT(obj, fields)`` after the caller has compared
#: ``len(fields)`` with the class's field count (:data:`FIELD_COUNT`), calling :func:`rebuilt`
#: to refuse a dict of another length
NEW: Any = _new
SET_DICT: Any = _set


class _FieldCount(dict[type, int]):
    """Per dataclass: its number of fields (what a state class's instance dict holds)."""

    def __missing__(self, cls: type) -> int:
        n = self[cls] = len(dataclasses.fields(cls))
        return n


FIELD_COUNT = _FieldCount()


def _make(cls: type, changed: tuple[str, ...]) -> _Evolve:
    fields = dataclasses.fields(cls)
    names = [f.name for f in fields]
    unknown = [n for n in changed if n not in names or not _init(fields, n)]
    if unknown:
        raise FieldError(f"{cls.__name__}.__init__() got an unexpected keyword argument "
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


def fast_init(classes: Iterable[type]) -> None:
    """Give each frozen, slotted dataclass in ``classes`` (and their subclasses) an
    ``__init__`` that stores every field through its slot descriptor's own ``__set__``, as the
    copier of :func:`replace` does: the frozen ``__init__`` that ``dataclass`` writes calls
    ``object.__setattr__`` by name for each field, which makes an event or an input cost two and
    a half times what it need (a replay builds one of each per input). The parameters, their
    defaults, keyword-only fields and ``__post_init__`` are the dataclass's; a class with a
    default factory, an ``InitVar``, a field outside ``__init__`` or a field name the generated
    code uses keeps its own."""
    todo = list(classes)
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        init = _fast_init(cls)
        if init is not None:
            cls.__init__ = init  # type: ignore[misc]


def _fast_init(cls: type) -> Callable[..., None] | None:
    if "__dataclass_fields__" not in cls.__dict__ or "__slots__" not in cls.__dict__:
        return None  # not a slotted dataclass itself (its own __init__, if any, stands)
    fields = dataclasses.fields(cls)
    descriptors = [getattr(cls, f.name, None) for f in fields]
    if (_has_initvars(cls)
            or not all(isinstance(d, types.MemberDescriptorType) for d in descriptors)
            or any(not f.init or f.default_factory is not dataclasses.MISSING
                   or f.name == "self" or f.name.startswith("_") for f in fields)):
        return None
    env: dict[str, Any] = {}
    params: list[str] = []
    keywords: list[str] = []
    body: list[str] = []
    for i, (f, d) in enumerate(zip(fields, descriptors, strict=True)):
        env[f"_s{i}"] = d.__set__  # type: ignore[union-attr]
        param = f.name
        if f.default is not dataclasses.MISSING:
            env[f"_d{i}"] = f.default
            param = f"{f.name}=_d{i}"
        (keywords if f.kw_only else params).append(param)
        body.append(f"    _s{i}(self, {f.name})")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    signature = ", ".join(["self", *params, *(["*", *keywords] if keywords else [])])
    exec(f"def __init__({signature}):\n" + ("\n".join(body) or "    pass"), env)
    init: Callable[..., None] = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    if cls.__new__ is _new:  # (the maker's source, compiled by the first maker(cls) only)
        env["_new"], env["_cls"] = _new, cls
        _MAKERS[cls] = (f"def make({signature.removeprefix('self').removeprefix(', ')}):\n"
                        "    self = _new(_cls)\n" + "".join(line + "\n" for line in body)
                        + "    return self", env)
    return init


#: per class given a quick ``__init__``: a function that makes an instance the same way, without
#: the class call around it (:func:`maker`), or its source and names until first asked for
_MAKERS: dict[object, Callable[..., Any] | tuple[str, dict[str, Any]]] = {}


def maker(cls: Callable[P, T]) -> Callable[P, T]:
    """``cls`` itself, or, for a class given a quick ``__init__`` by :func:`fast_init`, a
    function with the same parameters that makes the same instance: calling a class runs
    ``type.__call__`` and then ``__init__`` as a second call, a third of the cost of a small
    value (the draw and discard handlers make three of them an input)."""
    made = _MAKERS.get(cls)
    if made is None:
        return cls
    if isinstance(made, tuple):
        source, env = made
        exec(source, env)
        made = _MAKERS[cls] = env["make"]
        made.__qualname__ = f"{getattr(cls, '__qualname__', 'value')} (made)"
    return made
