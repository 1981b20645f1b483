"""IDs in JSON as decimal strings: they pass 2**53 in every preset, where
JavaScript and many JSON parsers lose precision. A bare number is refused."""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from ._polyflake import Parts, parse_id

__all__ = ["dumps", "loads", "json_default"]


def json_default(obj: Any) -> Any:
    """``default=`` for ``json.dumps``: writes a decoded ``Parts`` as a dict with
    ``id`` as a string. (Plain ints never reach ``default``; use ``dumps``.)"""
    if isinstance(obj, Parts):
        return {"id": str(obj.id), "layout": obj.layout.name, **obj._asdict()}
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")


def _out(obj: Any, keys: Collection[str]) -> Any:
    if isinstance(obj, dict):
        return {
            k: str(v)
            if k in keys and isinstance(v, int) and not isinstance(v, bool)
            else _out(v, keys)
            for k, v in obj.items()
        }
    if isinstance(obj, (list, tuple)):
        return [_out(v, keys) for v in obj]
    return obj


def dumps(obj: Any, *, id_keys: Collection[str] = ("id",), **kwargs: Any) -> str:
    """``json.dumps`` that writes the ints under ``id_keys`` (at any depth) as strings."""
    kwargs.setdefault("default", json_default)
    return json.dumps(_out(obj, frozenset(id_keys)), **kwargs)


def _in(obj: Any, keys: Collection[str]) -> Any:
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if k in keys and v is not None:
                if not isinstance(v, str):
                    raise ValueError(
                        f"{k!r} must be a decimal string in JSON, not {type(v).__name__}"
                    )
                out[k] = parse_id(v, "decimal")
            else:
                out[k] = _in(v, keys)
        return out
    if isinstance(obj, list):
        return [_in(v, keys) for v in obj]
    return obj


def loads(text: str | bytes, *, id_keys: Collection[str] = ("id",), **kwargs: Any) -> Any:
    """``json.loads`` that reads the strings under ``id_keys`` back into ints,
    refusing bare numbers and anything but a canonical decimal."""
    return _in(json.loads(text, **kwargs), frozenset(id_keys))
