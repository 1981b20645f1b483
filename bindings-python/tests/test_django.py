"""polyflake.django against a real PostgreSQL 15 (tests/postgres_cluster.py):
the project in django_project/, its committed migration applied by `migrate`,
keys minted by the process's generator, the ID's 64 bits in a bigint, and
Django REST framework writing IDs (keys and foreign keys) as strings."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from io import StringIO
from pathlib import Path
from typing import Any

import polyflake
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent / "django_project"))
from postgres_cluster import Cluster  # the repository's one way to start PostgreSQL

HERE = Path(__file__).resolve().parent

MAX = 2**64 - 1
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def django_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Django set up on a cluster of its own, migrated; yields the models module."""
    cluster = Cluster()
    cluster.start()
    saved = dict(os.environ)
    os.environ.update(
        DJANGO_SETTINGS_MODULE="settings",
        POLYFLAKE_TEST_DATABASE_URL=cluster.url,
        # The process generator's identity, as the environment gives it.
        POLYFLAKE_NODE_ID="45",
        POLYFLAKE_STATE_DIR=str(tmp_path_factory.mktemp("state")),
    )
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    from orders import models

    try:
        yield models
    finally:
        from django.db import connections

        connections.close_all()
        os.environ.clear()
        os.environ.update(saved)
        cluster.close()


def test_the_committed_migration_matches_the_models(django_db: Any) -> None:
    from django.core.management import call_command

    out = StringIO()
    # Fails (exit 1) if the field's deconstruction changed: the generator
    # must never be written into a migration.
    call_command("makemigrations", "orders", "--check", "--dry-run", stdout=out)
    migration = (HERE / "django_project/orders/migrations/0001_initial.py").read_text()
    assert "polyflake.django.SnowflakeField" in migration and "default=" not in migration


def test_keys_come_from_the_process_generator_and_keep_every_bit(django_db: Any) -> None:
    Order = django_db.Order
    first = Order.objects.create(item="tea")
    child = Order.objects.create(item="cup", parent=first)
    assert child.id > first.id > 2**53
    again = Order.objects.get(id=child.id)
    assert again.id == child.id and again.parent_id == first.id
    # The node of POLYFLAKE_NODE_ID=45 (twitter: datacenter 1, machine 13),
    # intact: a lost low bit would change it.
    parts = polyflake.decode(child.id, "twitter")
    assert (parts.datacenter_id, parts.machine_id) == (1, 13)


def test_bulk_create_gives_every_row_its_own_key(django_db: Any) -> None:
    Order = django_db.Order
    made = Order.objects.bulk_create(Order(item=f"bulk {i}") for i in range(20_000))
    keys = {o.id for o in made}
    assert len(keys) == 20_000
    assert Order.objects.filter(id__in=keys).count() == 20_000


def test_all_64_bits_and_the_signed_bigint(django_db: Any) -> None:
    from django.db import connection

    Event = django_db.Event
    Event.objects.create(id=MAX, at_ms=1)
    Event.objects.create(id=2**63 + 7, at_ms=2)
    assert Event.objects.get(at_ms=1).id == MAX
    assert Event.objects.get(id=2**63 + 7).at_ms == 2
    with connection.cursor() as cursor:
        cursor.execute("SELECT id FROM orders_event WHERE at_ms IN (1, 2) ORDER BY at_ms")
        assert [row[0] for row in cursor.fetchall()] == [-1, -(2**63) + 7]
    Event.objects.filter(at_ms__in=[1, 2]).delete()


def test_bad_values_are_validation_errors_with_the_core_code(django_db: Any) -> None:
    from django.core.exceptions import ValidationError

    Order = django_db.Order
    Order(id=MAX, item="ok").full_clean()
    for bad in (-1, MAX + 1, "12a", 1.5):
        with pytest.raises(ValidationError) as caught:
            Order(id=bad, item="bad").full_clean()
        assert "id" in caught.value.message_dict
    with pytest.raises(ValidationError, match="FIELD_OUT_OF_RANGE"):
        Order(id=MAX + 1, item="bad").full_clean()
    # Text goes through the core's decimal parser.
    with pytest.raises(ValidationError, match="INVALID_ENCODING: invalid decimal ID: overflows"):
        Order(id=str(MAX + 1), item="bad").full_clean()


def test_rest_framework_writes_ids_as_strings(django_db: Any) -> None:
    from orders.serializers import OrderSerializer
    from rest_framework.renderers import JSONRenderer

    Order = django_db.Order
    parent = Order.objects.create(item="tea")
    child = Order.objects.create(item="cup", parent=parent)
    body = json.loads(JSONRenderer().render(OrderSerializer(child).data))
    assert body == {"id": str(child.id), "parent": str(parent.id), "item": "cup"}
    # Read back: strings (and ints) are accepted, and the key is exact.
    made = OrderSerializer(data={"parent": str(child.id), "item": "saucer"})
    assert made.is_valid(), made.errors
    saved = made.save()
    assert saved.parent_id == child.id
    assert Order.objects.get(id=int(str(saved.id))).item == "saucer"
    bad = OrderSerializer(data={"parent": str(MAX + 1), "item": "x"})
    assert not bad.is_valid() and "INVALID_ENCODING" in str(bad.errors["parent"])
    too_large = OrderSerializer(data={"parent": MAX + 1, "item": "x"})
    assert not too_large.is_valid() and "FIELD_OUT_OF_RANGE" in str(too_large.errors["parent"])
    number = OrderSerializer(data={"id": 1.5, "item": "x"})
    assert not number.is_valid() and "id" in number.errors


def test_id_range_selects_by_the_key_alone(django_db: Any) -> None:
    from polyflake.django import id_range

    Event = django_db.Event
    # discord sets bit 63 from 2^41 ms after its epoch: a range across that
    # instant holds positive and negative bigints.
    flip_ms = polyflake.Layout("discord").epoch_ms + 2**41
    nodes = {name: 1 for name, _ in polyflake.Layout("discord").nodes}
    for ms in [flip_ms + s * 1000 for s in range(-3, 4)] + [1_700_000_000_000]:
        Event.objects.create(
            id=polyflake.compose("discord", timestamp_ms=ms, sequence=0, **nodes), at_ms=ms
        )
    since = EPOCH + timedelta(milliseconds=flip_ms - 2000)
    found = Event.objects.filter(id_range("id", "discord", since, flip_ms + 1000))
    assert sorted(e.at_ms for e in found) == [flip_ms + s * 1000 for s in range(-2, 2)]
    one = Event.objects.filter(id_range("id", "discord", 1_699_999_999_000, 1_700_000_000_000))
    assert [e.at_ms for e in one] == [1_700_000_000_000]
