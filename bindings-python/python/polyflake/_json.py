"""IDs in JSON as decimal strings: they pass 2**53 in every preset, where
JavaScript and many JSON parsers lose precision. A bare number is refused.

Which values are IDs: those under an *ID key* (``is_id_key``): ``id``, ``ids``,
or a key ending in ``_id``, ``_ids``, ``Id``, ``Ids``, ``ID`` or ``IDs``, at any
depth, each a single value or a list of them. ``id_keys=`` replaces the rule
with an exact set of key names."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from typing import Any

from ._polyflake import Parts, is_id_key, parse_id

__all__ = ["dumps", "loads", "json_default", "is_id_key"]


def json_default(obj: Any) -> Any:
    """``default=`` for ``json.dumps``: writes a decoded ``Parts`` as a dict with
    ``id`` as a string. (Plain ints never reach ``default``; use ``dumps``.)"""
    if isinstance(obj, Parts):
        return {"id": str(obj.id), "layout": obj.layout.name, **obj._asdict()}
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")


def _rule(id_keys: Collection[str] | None) -> Callable[[str], bool]:
    if id_keys is None:
        return is_id_key
    if isinstance(id_keys, str):
        raise TypeError("id_keys must be a collection of key names, not a str")
    keys = frozenset(id_keys)
    return keys.__contains__


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _out(obj: Any, is_key: Callable[[str], bool]) -> Any:
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if isinstance(k, str) and is_key(k):
                if _is_int(v):
                    v = str(v)
                elif isinstance(v, (list, tuple)):
                    v = [str(x) if _is_int(x) else _out(x, is_key) for x in v]
                else:
                    v = _out(v, is_key)
            else:
                v = _out(v, is_key)
            out[k] = v
        return out
    if isinstance(obj, (list, tuple)):
        return [_out(v, is_key) for v in obj]
    return obj


def dumps(obj: Any, *, id_keys: Collection[str] | None = None, **kwargs: Any) -> str:
    """``json.dumps`` that writes the ints under ID keys (``is_id_key``, or
    exactly the names in ``id_keys``), alone or in lists, as decimal strings."""
    kwargs.setdefault("default", json_default)
    return json.dumps(_out(obj, _rule(id_keys)), **kwargs)


def _read_id(key: str, v: Any) -> Any:
    if v is None:
        return None
    if not isinstance(v, str):
        raise ValueError(f"{key!r} must be a decimal string in JSON, not {type(v).__name__}")
    return parse_id(v, "decimal")


def _in(obj: Any, is_key: Callable[[str], bool]) -> Any:
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if is_key(k):
                out[k] = [_read_id(k, x) for x in v] if isinstance(v, list) else _read_id(k, v)
            else:
                out[k] = _in(v, is_key)
        return out
    if isinstance(obj, list):
        return [_in(v, is_key) for v in obj]
    return obj


def loads(text: str | bytes, *, id_keys: Collection[str] | None = None, **kwargs: Any) -> Any:
    """``json.loads`` that reads the strings under ID keys (``is_id_key``, or
    exactly the names in ``id_keys``), alone or in lists, back into ints,
    refusing bare numbers and anything but a canonical decimal."""
    return _in(json.loads(text, **kwargs), _rule(id_keys))
