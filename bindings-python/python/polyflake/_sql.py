"""What the SQL integrations (``polyflake.sqlalchemy``, ``polyflake.django``)
share: an ID in a ``BIGINT``, and the bounds of a time range on the key.

A ``BIGINT`` is signed; an ID is not. Every integration stores the ID's 64
bits, as the PostgreSQL extension and Kotlin's ``Long`` do: an ID below 2**63
is the same number, an ID with bit 63 set is a negative ``BIGINT``.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import NamedTuple

from ._polyflake import max_id, min_id
from ._types import LayoutLike
from .errors import FieldOutOfRangeError, InvalidArgumentError

BIT_63 = 1 << 63
MAX_ID = (1 << 64) - 1
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def checked_id(id: object) -> int:
    """``id`` if it is an ``int`` from 0 to 2**64 - 1; else the contract's
    error (``FIELD_OUT_OF_RANGE`` with ``field``, ``value`` and ``max``, as
    the core reports a field, or ``INVALID_ARGUMENT`` for another type)."""
    if isinstance(id, bool) or not isinstance(id, int):
        raise InvalidArgumentError(
            f"a Snowflake ID is an int, not {type(id).__name__}", {"kind": "usage"}
        )
    if not 0 <= id <= MAX_ID:
        raise FieldOutOfRangeError(
            f"id = {id} is outside 0..={MAX_ID}", {"field": "id"}, {"value": id, "max": MAX_ID}
        )
    return id


def to_bigint(id: object) -> int:
    """The ``BIGINT`` with the 64 bits of ``id`` (refused as ``checked_id``
    refuses)."""
    checked = checked_id(id)
    return checked - (1 << 64) if checked >= BIT_63 else checked


def from_bigint(value: int) -> int:
    """The ID whose 64 bits the ``BIGINT`` ``value`` holds."""
    return value & 0xFFFF_FFFF_FFFF_FFFF


def _ms(at: datetime | int, name: str) -> int:
    if isinstance(at, datetime):
        if at.tzinfo is None:
            raise InvalidArgumentError(
                f"{name} is a naive datetime: give it a timezone (for example "
                "datetime.now(timezone.utc)), or milliseconds since 1970",
                {"kind": "usage"},
            )
        return (at - _EPOCH) // timedelta(milliseconds=1)
    if isinstance(at, bool) or not isinstance(at, int):
        raise InvalidArgumentError(
            f"{name} is an aware datetime or milliseconds since 1970, not {type(at).__name__}",
            {"kind": "usage"},
        )
    return at


class KeyBounds(NamedTuple):
    """The IDs of a time range: every ID from ``low`` to ``high``. Where
    ``crosses_bit_63``, the ``BIGINT``s are ``>= to_bigint(low)`` or
    ``<= to_bigint(high)``, two ranges either side of the sign."""

    low: int
    high: int
    crosses_bit_63: bool


def key_bounds(layout: LayoutLike, since: datetime | int, until: datetime | int) -> KeyBounds:
    """The bounds of the IDs of ``layout`` issued from ``since`` to ``until``,
    both included (aware datetimes or milliseconds since 1970)."""
    low = min_id(layout, _ms(since, "since"))
    high = max_id(layout, _ms(until, "until"))
    if low > high:
        raise InvalidArgumentError(f"since ({since}) is after until ({until})", {"kind": "usage"})
    return KeyBounds(low, high, low < BIT_63 <= high)
