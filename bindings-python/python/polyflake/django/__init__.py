"""Django: a model field for Snowflake IDs, minted by the process's generator::

    from django.db import models
    from polyflake.django import SnowflakeField

    class Order(models.Model):
        id = SnowflakeField(primary_key=True)  # a new ID of settings.POLYFLAKE_LAYOUT
        parent = models.ForeignKey("self", null=True, on_delete=models.SET_NULL)

    Order.objects.filter(id_range("id", "twitter", since, until))

``SnowflakeField`` is a ``BigIntegerField`` whose default is the next ID of
the process's generator for its layout (``layout=``, else the setting
``POLYFLAKE_LAYOUT``, else ``"twitter"``): ``Generator.from_env(layout)``,
made once per process and claiming its identity at its first ID, so that it
serves every worker of a pre-forking server (the ``POLYFLAKE_*`` variables
of ``docs/identity.md`` choose it). The setting ``POLYFLAKE_GENERATOR``, a
dotted path to a ``polyflake.Generator`` of the application's own, replaces
it. The default is not written into migrations.

In Python the value is an ``int`` from 0 to 2**64 - 1; in the database a
``bigint`` with the same 64 bits, as the PostgreSQL extension and Kotlin's
``Long`` store it. Django REST framework: :mod:`polyflake.django.rest_framework`
writes the IDs as strings.

Install with ``pip install polyflake[django]``; the base package does not
depend on Django.
"""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Any

# Django ships no type information (django-stubs is a separate package).
from django.core import exceptions  # type: ignore[import-untyped]
from django.db import models  # type: ignore[import-untyped]
from django.utils.module_loading import import_string  # type: ignore[import-untyped]

from .._polyflake import Generator, parse_id
from .._sql import checked_id, from_bigint, key_bounds, to_bigint
from .._types import LayoutLike
from ..errors import PolyflakeError

__all__ = ["SnowflakeField", "generator", "id_range"]

_generators: dict[str, Generator] = {}
_making = threading.Lock()


def generator(layout: str | None = None) -> Generator:
    """The process's generator for ``layout`` (default: the setting
    ``POLYFLAKE_LAYOUT``, else ``"twitter"``), made at the first call and
    kept: every row's default asks for it, so the settings are read once."""
    key = layout or ""
    made = _generators.get(key)
    if made is None:
        with _making:
            made = _generators.get(key)
            if made is None:
                made = _generators[key] = _make(layout)
    return made


def _make(layout: str | None) -> Generator:
    from django.conf import settings  # type: ignore[import-untyped]  # configured by now

    configured = getattr(settings, "POLYFLAKE_GENERATOR", None)
    if configured is not None:
        found = import_string(configured) if isinstance(configured, str) else configured
        if not isinstance(found, Generator):
            raise exceptions.ImproperlyConfigured(
                f"POLYFLAKE_GENERATOR names {type(found).__name__}, not a polyflake.Generator"
            )
        return found
    return Generator.from_env(layout or str(getattr(settings, "POLYFLAKE_LAYOUT", "twitter")))


class SnowflakeField(models.BigIntegerField):  # type: ignore[misc]
    """A 64-bit Snowflake ID: an ``int`` in Python, a ``bigint`` with the
    same bits in the database; by default a new ID of the process's generator."""

    description = "Snowflake ID (64 bits)"
    default_error_messages = {
        "invalid": "“%(value)s” is not a Snowflake ID: %(reason)s",
    }

    def __init__(self, *args: Any, layout: str | None = None, **kwargs: Any) -> None:
        self.layout = layout
        if "default" not in kwargs:
            kwargs["default"] = self._next_id
        super().__init__(*args, **kwargs)

    def _next_id(self) -> int:
        return generator(self.layout).next_id()

    def deconstruct(self) -> Any:
        name, path, args, kwargs = super().deconstruct()
        # The generator belongs to the process, not to the schema.
        if kwargs.get("default") == self._next_id:
            del kwargs["default"]
        if self.layout is not None:
            kwargs["layout"] = self.layout
        return name, "polyflake.django.SnowflakeField", args, kwargs

    @property
    def validators(self) -> list[Any]:
        # Not BigIntegerField's signed range: every 64-bit ID is valid, and
        # to_python has checked that already.
        return list(self._validators)

    def to_python(self, value: Any) -> int | None:
        if value is None:
            return None
        try:
            if isinstance(value, str):
                return parse_id(value.strip(), "decimal")
            return checked_id(value)
        except PolyflakeError as e:
            raise self._invalid(value, e) from None

    def _invalid(self, value: Any, error: PolyflakeError) -> exceptions.ValidationError:
        return exceptions.ValidationError(
            self.error_messages["invalid"],
            code="invalid",
            params={"value": value, "reason": f"{error.code}: {error}"},
        )

    def get_prep_value(self, value: Any) -> int | None:
        value = models.Field.get_prep_value(self, value)
        if value is None or hasattr(value, "resolve_expression"):
            return value  # type: ignore[no-any-return]
        if isinstance(value, str):
            value = self.to_python(value)
        return to_bigint(value)

    def from_db_value(self, value: int | None, expression: Any, connection: Any) -> int | None:
        return None if value is None else from_bigint(value)


def id_range(
    field: str, layout: LayoutLike, since: datetime | int, until: datetime | int
) -> models.Q:
    """The filter that ``field`` (a model field's name, or a path such as
    ``"order__id"``) holds an ID of ``layout`` issued from ``since`` to
    ``until``, both included (aware datetimes or milliseconds since 1970),
    which the key's index answers; right across bit 63 too."""
    bounds = key_bounds(layout, since, until)
    low = models.Q(**{f"{field}__gte": bounds.low})
    high = models.Q(**{f"{field}__lte": bounds.high})
    return (low | high) if bounds.crosses_bit_63 else (low & high)
