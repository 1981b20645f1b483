"""Django REST framework: Snowflake IDs as decimal strings in JSON.

A JSON number loses the low bits of a Snowflake ID in every browser (a double
holds 53 bits); a string does not. DRF writes a ``BigIntegerField``, and so a
``SnowflakeField`` and every key that points to one, as a number. Here::

    from polyflake.django.rest_framework import SnowflakeModelSerializer

    class OrderSerializer(SnowflakeModelSerializer):
        class Meta:
            model = Order
            fields = ["id", "parent", "item"]

writes ``id`` and ``parent`` (a foreign key to a model keyed by a
``SnowflakeField``) as strings, and reads them from strings or ints.
``SnowflakeIdField`` is the field itself, for plain serializers. A value that
is not a 64-bit ID is a validation error carrying the core's code.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers  # type: ignore[import-untyped]

from .._polyflake import format_id, parse_id
from .._sql import checked_id
from ..errors import PolyflakeError
from . import SnowflakeField

__all__ = ["SnowflakeIdField", "SnowflakeModelSerializer", "SnowflakeRelatedField"]


def _parse(data: Any) -> int:
    """An int in the ID's range or a string of decimal digits; raises the
    core's error (or ``TypeError`` for another type)."""
    if isinstance(data, str):
        return parse_id(data, "decimal")
    if isinstance(data, bool) or not isinstance(data, int):
        raise TypeError(type(data).__name__)
    return checked_id(data)


class SnowflakeIdField(serializers.Field):  # type: ignore[misc]
    """A 64-bit ID: a decimal string in JSON, an ``int`` in Python."""

    default_error_messages = {
        "invalid": "A Snowflake ID is a string of decimal digits or an integer, not {type}.",
        "refused": "{code}: {message}",
    }

    def __init__(self, **kwargs: Any) -> None:
        # ModelSerializer passes the model field's bounds; the core checks the range.
        kwargs.pop("min_value", None)
        kwargs.pop("max_value", None)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> int:
        try:
            return _parse(data)
        except TypeError:
            self.fail("invalid", type=type(data).__name__)
        except PolyflakeError as e:
            self.fail("refused", code=e.code, message=str(e))
        raise AssertionError("unreachable")  # self.fail raises

    def to_representation(self, value: int) -> str:
        return format_id(value, "decimal")


class SnowflakeRelatedField(serializers.PrimaryKeyRelatedField):  # type: ignore[misc]
    """A foreign key to a model keyed by a ``SnowflakeField``: the key as a string."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("pk_field", SnowflakeIdField())
        super().__init__(**kwargs)


class SnowflakeModelSerializer(serializers.ModelSerializer):  # type: ignore[misc]
    """A ``ModelSerializer`` that writes every ``SnowflakeField``, and every
    key pointing to one, as a string."""

    serializer_field_mapping = {
        **serializers.ModelSerializer.serializer_field_mapping,
        SnowflakeField: SnowflakeIdField,
    }

    def build_relational_field(self, field_name: str, relation_info: Any) -> Any:
        field_class, field_kwargs = super().build_relational_field(field_name, relation_info)
        target = relation_info.related_model._meta.pk
        if isinstance(target, SnowflakeField) and issubclass(
            field_class, serializers.PrimaryKeyRelatedField
        ):
            field_kwargs.setdefault("pk_field", SnowflakeIdField())
        return field_class, field_kwargs
