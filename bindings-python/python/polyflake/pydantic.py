"""pydantic v2 (and so FastAPI): :data:`SnowflakeId`, a 64-bit ID that is an
``int`` in Python and a decimal string in JSON.

A JSON number loses the low bits of a Snowflake ID in every browser (a double
holds 53 bits); a string does not. So a model field annotated ``SnowflakeId``
accepts an ``int`` or a string of decimal digits, is an ``int`` in Python
(``model_dump()``), a string in JSON (``model_dump_json()``, FastAPI's
responses), and a string with a digits pattern in the JSON schema (OpenAPI)::

    from pydantic import BaseModel
    from polyflake.pydantic import SnowflakeId

    class Order(BaseModel):
        id: SnowflakeId
        items: list[SnowflakeId] = []

    Order(id="1541815603606036480").model_dump_json()  # '{"id":"1541815603606036480",...}'

The range and the digits are the core's rules (``format_id`` and
``parse_id``): anything else is a validation error carrying the contract's
code. Install with ``pip install polyflake[pydantic]``; the base package
does not depend on pydantic.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

from ._polyflake import format_id, parse_id
from .errors import PolyflakeError

__all__ = ["SnowflakeId", "SNOWFLAKE_ID_PATTERN"]

#: The JSON schema's pattern: 1 to 20 decimal digits (the range, up to
#: 2**64 - 1, is checked on validation).
SNOWFLAKE_ID_PATTERN = "^[0-9]{1,20}$"


def _refused(error: PolyflakeError) -> PydanticCustomError:
    return PydanticCustomError(
        "snowflake_id", "{code}: {message}", {"code": error.code, "message": str(error)}
    )


def _validate(value: Any) -> int:
    """An int in the ID's range, or a string the core parses as a decimal ID."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise PydanticCustomError(
            "snowflake_id_type",
            "a Snowflake ID is an int or a string of decimal digits, not {type}",
            {"type": type(value).__name__},
        )
    try:
        # An int goes through the same parser, so that its range is the
        # core's rule with the core's code too.
        return parse_id(value if isinstance(value, str) else str(int(value)), "decimal")
    except PolyflakeError as e:
        raise _refused(e) from None


def _to_json(value: int) -> str:
    return format_id(value, "decimal")


class _SnowflakeIdSchema:
    """The pydantic schema behind :data:`SnowflakeId`."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            _validate,
            serialization=core_schema.plain_serializer_function_ser_schema(
                _to_json, when_used="json"
            ),
        )

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {
            "type": "string",
            "pattern": SNOWFLAKE_ID_PATTERN,
            "maxLength": 20,
            "format": "snowflake-id",
            "description": "A 64-bit Snowflake ID as a decimal string (exact in every language).",
        }


#: A 64-bit Snowflake ID: ``int`` in Python, a decimal string in JSON.
SnowflakeId = Annotated[int, _SnowflakeIdSchema()]
