"""polyflake.sqlalchemy against a real PostgreSQL 15 (tests/postgres_cluster.py),
through SQLAlchemy 2 and psycopg 3: keys minted by the process's generator,
the ID's 64 bits in a BIGINT, and time ranges on the key."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import polyflake
import pytest
from polyflake.sqlalchemy import SnowflakeId, id_range, snowflake_key
from sqlalchemy import (
    BigInteger,
    Engine,
    String,
    create_engine,
    func,
    insert,
    select,
    text,
)
from sqlalchemy.exc import StatementError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from postgres_cluster import Cluster  # the repository's one way to start PostgreSQL

# The process's one generator, as an application makes it.
ids = polyflake.Generator("twitter", datacenter_id=3, machine_id=9)

MAX = 2**64 - 1
BIT_63 = 2**63


class Base(DeclarativeBase):
    pass


class Order(Base):
    __tablename__ = "orders"
    id: Mapped[int] = snowflake_key(ids)
    parent_id: Mapped[int | None] = mapped_column(SnowflakeId)
    name: Mapped[str] = mapped_column(String(40))


class Event(Base):
    """Keys written by the test itself, of any layout, for the range queries."""

    __tablename__ = "events"
    id: Mapped[int] = mapped_column(SnowflakeId, primary_key=True)
    at_ms: Mapped[int] = mapped_column(BigInteger)


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    cluster = Cluster()
    cluster.start()
    engine = create_engine(cluster.url.replace("postgresql://", "postgresql+psycopg://"))
    Base.metadata.create_all(engine)
    try:
        yield engine
    finally:
        engine.dispose()
        cluster.close()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    with Session(engine) as session:
        yield session
        session.rollback()
    with engine.begin() as conn:
        conn.execute(text("TRUNCATE orders, events"))


def test_keys_come_from_the_generator_and_keep_every_bit(session: Session) -> None:
    before = ids.next_id()
    orders = [Order(name=f"o{i}") for i in range(50)]
    session.add_all(orders)
    session.flush()
    keys = [o.id for o in orders]
    assert all(k > before for k in keys) and keys == sorted(keys)
    assert len(set(keys)) == 50
    session.commit()
    session.expunge_all()
    read = session.scalars(select(Order).order_by(Order.id)).all()
    assert [o.id for o in read] == keys
    # A key past a double's precision reads back with its node bits: a lost
    # low bit would change them.
    assert keys[0] > 2**53
    for key in keys:
        parts = polyflake.decode(key, "twitter")
        assert (parts.datacenter_id, parts.machine_id) == (3, 9)


def test_a_bigint_holds_the_same_64_bits_as_the_extension_stores_them(session: Session) -> None:
    order = Order(name="wide", parent_id=MAX)
    other = Order(name="bit 63", parent_id=BIT_63 + 12345)
    session.add_all([order, other])
    session.commit()
    keys = order.id, other.id
    session.expunge_all()
    assert session.get(Order, keys[0]).parent_id == MAX  # type: ignore[union-attr]
    assert session.get(Order, keys[1]).parent_id == BIT_63 + 12345  # type: ignore[union-attr]
    # In SQL they are the signed BIGINTs with those bits, as next_id() in
    # PostgreSQL and Kotlin's Long have them.
    raw = dict(session.execute(text("SELECT name, parent_id FROM orders")).all())
    assert raw == {"wide": -1, "bit 63": -(2**63) + 12345}


@pytest.mark.parametrize("bad", [-1, MAX + 1, 2**70])
def test_a_value_outside_64_bits_is_refused_with_the_core_code(session: Session, bad: int) -> None:
    session.add(Order(name="bad", parent_id=bad))
    with pytest.raises(StatementError) as caught:
        session.flush()
    refused = caught.value.orig
    assert isinstance(refused, polyflake.FieldOutOfRangeError)
    assert (refused.code, refused.field, refused.value, refused.max) == (
        "FIELD_OUT_OF_RANGE",
        "id",
        bad,
        MAX,
    )


@pytest.mark.parametrize("bad", ["12", 1.0, True])
def test_a_value_that_is_not_an_int_is_refused(session: Session, bad: object) -> None:
    session.add(Order(name="bad", parent_id=bad))
    with pytest.raises(StatementError) as caught:
        session.flush()
    assert isinstance(caught.value.orig, polyflake.InvalidArgumentError)


def test_bulk_insert_of_100000_rows_gets_100000_keys(engine: Engine, session: Session) -> None:
    session.execute(insert(Order), [{"name": f"bulk {i}"} for i in range(100_000)])
    session.commit()
    rows, distinct, low, high = session.execute(
        select(
            func.count(), func.count(Order.id.distinct()), func.min(Order.id), func.max(Order.id)
        )
    ).one()
    assert rows == 100_000 and distinct == 100_000
    for key in (low, high):
        assert polyflake.decode(key, "twitter").machine_id == 9


EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _ms(at: datetime) -> int:
    return (at - EPOCH) // timedelta(milliseconds=1)


def _composed(layout: str, at: datetime, sequence: int) -> int:
    nodes = {name: 1 for name, _ in polyflake.Layout(layout).nodes}
    return polyflake.compose(layout, timestamp_ms=_ms(at), sequence=sequence, **nodes)


def test_id_range_selects_by_the_key_alone(session: Session) -> None:
    start = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
    times = [start + timedelta(minutes=m, milliseconds=ms) for m in range(6) for ms in (0, 999)]
    session.add_all(
        Event(id=_composed("twitter", at, seq), at_ms=_ms(at)) for seq, at in enumerate(times)
    )
    session.commit()
    since, until = start + timedelta(minutes=1), start + timedelta(minutes=3, milliseconds=999)
    found = session.scalars(
        select(Event.at_ms).where(id_range(Event.id, "twitter", since, until))
    ).all()
    expected = [_ms(t) for t in times if since <= t <= until]
    assert sorted(found) == expected and len(expected) == 6
    # Milliseconds since 1970 mean the same.
    by_ms = session.scalars(
        select(Event.at_ms).where(id_range(Event.id, "twitter", _ms(since), until))
    ).all()
    assert sorted(by_ms) == expected


def test_id_range_across_bit_63(session: Session) -> None:
    # discord's IDs set bit 63 from 2^41 ms after its epoch (2015) on: a range
    # across that instant holds positive and negative BIGINTs.
    flip_ms = polyflake.Layout("discord").epoch_ms + 2**41
    flip = EPOCH + timedelta(milliseconds=flip_ms)
    times = [flip + timedelta(seconds=s) for s in range(-3, 4)]
    session.add_all(Event(id=_composed("discord", at, 0), at_ms=_ms(at)) for at in times)
    session.commit()
    raw = session.execute(text("SELECT min(id) < 0, max(id) > 0 FROM events")).one()
    assert tuple(raw) == (True, True), "the rows straddle bit 63"
    since, until = flip - timedelta(seconds=2), flip + timedelta(seconds=1)
    found = session.scalars(
        select(Event.at_ms).where(id_range(Event.id, "discord", since, until))
    ).all()
    assert sorted(found) == [_ms(t) for t in times if since <= t <= until]
    assert len(found) == 4


def test_misuse_is_refused_with_a_code() -> None:
    with pytest.raises(polyflake.InvalidArgumentError) as caught:
        snowflake_key("twitter")  # type: ignore[arg-type]
    assert caught.value.kind == polyflake.ArgumentKind.USAGE
    with pytest.raises(polyflake.InvalidArgumentError, match="naive"):
        id_range(Event.id, "twitter", datetime(2026, 1, 1), datetime.now(timezone.utc))
    with pytest.raises(polyflake.InvalidArgumentError, match="after"):
        id_range(
            Event.id,
            "twitter",
            datetime.now(timezone.utc),
            datetime(2026, 1, 1, tzinfo=timezone.utc),
        )
    with pytest.raises(polyflake.TimestampBeforeEpochError):
        id_range(Event.id, "twitter", 0, 1)
