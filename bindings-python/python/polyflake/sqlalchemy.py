"""SQLAlchemy 2: primary keys minted by the process's generator, stored with
the ID's 64 bits in a ``BIGINT``, and time ranges on the key::

    from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
    import polyflake
    from polyflake.sqlalchemy import SnowflakeId, id_range, snowflake_key

    ids = polyflake.Generator.from_env("twitter")  # the process's one generator

    class Base(DeclarativeBase):
        pass

    class Order(Base):
        __tablename__ = "orders"
        id: Mapped[int] = snowflake_key(ids)
        parent_id: Mapped[int | None] = mapped_column(SnowflakeId)

    session.scalars(select(Order).where(id_range(Order.id, "twitter", since, until)))

``snowflake_key`` is a primary key column whose default calls the generator
it is given, once per row (the generator, made once for the process, is what
keeps two rows from one key; ``from_env`` claims its identity at the first
ID, so a module-level one is right under pre-forking servers too).

``SnowflakeId`` is the column type: an ``int`` from 0 to 2**64 - 1 in Python,
a ``BIGINT`` in the database with the same 64 bits, as the PostgreSQL
extension and Kotlin's ``Long`` store them (an ID with bit 63 set is a
negative ``BIGINT``). A value outside the range is refused with the core's
code before it reaches the database.

Install with ``pip install polyflake[sqlalchemy]``; the base package does not
depend on SQLAlchemy.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ColumnElement, and_, literal, or_
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import MappedColumn, mapped_column
from sqlalchemy.types import TypeDecorator

from ._polyflake import Generator
from ._sql import from_bigint, key_bounds, to_bigint
from ._types import LayoutLike
from .errors import InvalidArgumentError

__all__ = ["SnowflakeId", "id_range", "snowflake_key"]


class SnowflakeId(TypeDecorator[int]):
    """A 64-bit ID: ``int`` in Python, ``BIGINT`` with the same bits in SQL."""

    impl = BigInteger
    cache_ok = True

    def process_bind_param(self, value: int | None, dialect: Dialect) -> int | None:
        return None if value is None else to_bigint(value)

    def process_literal_param(self, value: int | None, dialect: Dialect) -> str:
        return "NULL" if value is None else str(to_bigint(value))

    def process_result_value(self, value: int | None, dialect: Dialect) -> int | None:
        return None if value is None else from_bigint(value)

    @property
    def python_type(self) -> type[int]:
        return int


def snowflake_key(generator: Generator, **column: Any) -> MappedColumn[Any]:
    """A primary key column of type :class:`SnowflakeId` whose default is
    ``generator.next_id()``. ``column`` goes to ``mapped_column``."""
    if not isinstance(generator, Generator):
        raise InvalidArgumentError(
            "snowflake_key takes the process's polyflake.Generator, made once "
            f"(not {type(generator).__name__}): a generator per call would issue one "
            "node value from many generators",
            {"kind": "usage"},
        )
    column.setdefault("primary_key", True)
    return mapped_column(SnowflakeId, default=generator.next_id, **column)


def id_range(
    column: Any, layout: LayoutLike, since: datetime | int, until: datetime | int
) -> ColumnElement[bool]:
    """The condition that ``column`` holds an ID of ``layout`` issued from
    ``since`` to ``until``, both included (aware datetimes or milliseconds
    since 1970): ``column BETWEEN min_id(since) AND max_id(until)``, which the
    key's index answers. Where the range crosses bit 63 (a negative
    ``BIGINT`` from there on) it is the two ranges either side."""
    bounds = key_bounds(layout, since, until)
    lo, hi = literal(bounds.low, SnowflakeId()), literal(bounds.high, SnowflakeId())
    if bounds.crosses_bit_63:
        return or_(column >= lo, column <= hi)
    return and_(column >= lo, column <= hi)
