"""Custom layouts by name (`polyflake.custom_layouts`): every function takes
them beside the presets, next_id issues them, and bad definitions are coded
errors that name the setting."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import polyflake
import psycopg
import pytest
from conftest import Cluster

EPOCH_MS = 1_704_067_200_000  # 2024-01-01
ORDERS = {
    "epoch_ms": EPOCH_MS,
    "time_bits": 41,
    "nodes": [["region", 3], ["shard", 7]],
    "sequence_bits": 12,
}
# Sonyflake's shape: 10 ms ticks, the sequence above the node field.
TICKETS = {
    "epoch_ms": EPOCH_MS,
    "time_bits": 39,
    "tick_ms": 10,
    "nodes": [["machine", 16]],
    "sequence_bits": 8,
    "sequence_above_nodes": True,
}


def python_layout(spec: dict) -> polyflake.Layout:
    return polyflake.Layout.custom(
        epoch_ms=spec["epoch_ms"],
        time_bits=spec["time_bits"],
        nodes=[tuple(pair) for pair in spec["nodes"]],
        sequence_bits=spec["sequence_bits"],
        tick_ms=spec.get("tick_ms", 1),
        sequence_above_nodes=spec.get("sequence_above_nodes", False),
    )


@pytest.fixture(scope="module")
def custom(state_dir) -> Iterator[psycopg.Connection]:
    cluster = Cluster(state_dir)
    cluster.start(
        {
            "polyflake.custom_layouts": json.dumps(
                {"orders": ORDERS, "tickets": TICKETS}
            ),
            "polyflake.layouts": "orders, twitter",
        }
    )
    try:
        with cluster.connect() as conn:
            yield conn
    finally:
        cluster.close()


def test_next_id_issues_the_custom_layout_the_server_names_first(
    custom: psycopg.Connection,
) -> None:
    ids = [row[0] for row in custom.execute("SELECT polyflake.next_ids(100)")]
    assert ids == sorted(ids) and len(set(ids)) == 100
    default = custom.execute("SELECT polyflake.next_id()").fetchone()[0]
    assert default > ids[-1]
    nodes, error = custom.execute(
        "SELECT nodes, error FROM polyflake.identities() WHERE layout = 'orders'"
    ).fetchone()
    assert error is None and set(nodes) == {"region", "shard"}, (nodes, error)
    parts = custom.execute(
        "SELECT polyflake.decode(%s, 'orders')", (default,)
    ).fetchone()[0]
    assert parts["layout"] == "orders"
    assert {k: parts[k] for k in nodes} == nodes
    assert abs(int(parts["timestamp_ms"]) - time.time() * 1000) < 5_000
    # The Python wheel, given the same definition, reads the same fields.
    python = polyflake.decode(default, python_layout(ORDERS)).to_dict()
    assert python == {k: int(v) for k, v in parts.items() if k not in {"id", "layout"}}


def test_every_function_takes_a_custom_layouts_name(
    custom: psycopg.Connection,
) -> None:
    layout = python_layout(TICKETS)
    at_ms = EPOCH_MS + 123_456_780
    expected = polyflake.compose(layout, timestamp_ms=at_ms, sequence=7, machine=513)
    composed = custom.execute(
        "SELECT polyflake.compose('tickets', %s, 7, '{\"machine\": 513}')", (at_ms,)
    ).fetchone()[0]
    assert composed == expected
    parts = custom.execute(
        "SELECT polyflake.decode(%s, 'tickets')", (composed,)
    ).fetchone()[0]
    assert (int(parts["timestamp_ms"]), parts["machine"], parts["sequence"]) == (
        at_ms,
        513,
        7,
    )
    low, high = custom.execute(
        "SELECT polyflake.min_id(polyflake.timestamp(%s, 'tickets'), 'tickets'),"
        " polyflake.max_id(polyflake.timestamp(%s, 'tickets'), 'tickets')",
        (composed, composed),
    ).fetchone()
    assert low <= composed <= high
    assert (low, high) == (
        polyflake.min_id(layout, at_ms),
        polyflake.max_id(layout, at_ms),
    )
    rows = custom.execute(
        "SELECT name, epoch_ms, tick_ms, time_bits, node_fields, sequence_bits"
        " FROM polyflake.layouts() WHERE name IN ('orders', 'tickets') ORDER BY name"
    ).fetchall()
    assert rows == [
        ("orders", EPOCH_MS, 1, 41, {"region": 3, "shard": 7}, 12),
        ("tickets", EPOCH_MS, 10, 39, {"machine": 16}, 8),
    ]


def test_an_unknown_name_lists_the_custom_layouts(custom: psycopg.Connection) -> None:
    with pytest.raises(psycopg.errors.InvalidParameterValue) as err:
        custom.execute("SELECT polyflake.decode(1, 'invoices')")
    message = str(err.value)
    assert message.startswith("INVALID_LAYOUT") and "orders, tickets" in message
    # A custom layout the server does not issue: next_id says which it does.
    with pytest.raises(psycopg.errors.InvalidParameterValue) as err:
        custom.execute("SELECT polyflake.next_id('tickets')")
    assert "orders" in str(err.value)


def test_without_preloading_an_unknown_name_says_the_setting_was_not_read(
    state_dir,
) -> None:
    cluster = Cluster(state_dir)
    cluster.start(
        {"polyflake.custom_layouts": json.dumps({"orders": ORDERS})}, preload=False
    )
    try:
        with cluster.connect() as conn:
            with pytest.raises(psycopg.errors.InvalidParameterValue) as refused:
                conn.execute("SELECT polyflake.timestamp(1, 'orders')")
            message = refused.value.diag.message_primary
            assert message.startswith("INVALID_LAYOUT:"), message
            assert "not in shared_preload_libraries" in message, message
    finally:
        cluster.close()


@pytest.mark.parametrize(
    ("definition", "says"),
    [
        ("not json", "not JSON"),
        (json.dumps({"twitter": ORDERS}), "preset"),
        (json.dumps({"o": {**ORDERS, "time_bits": 60}}), "more than 64"),
        (json.dumps({"o": {**ORDERS, "nodes": {"region": 3}}}), "pairs"),
    ],
)
def test_a_bad_definition_is_an_invalid_layout_naming_the_setting(
    new_cluster, definition: str, says: str
) -> None:
    cluster = new_cluster()
    cluster.start({"polyflake.custom_layouts": definition})
    with cluster.connect() as conn:
        # The presets still work, and next_id of the default layout.
        assert conn.execute("SELECT polyflake.next_id()").fetchone()[0] > 0
        with pytest.raises(psycopg.errors.InvalidParameterValue) as err:
            conn.execute("SELECT polyflake.decode(1, 'o')")
        message = str(err.value)
        assert message.startswith("INVALID_LAYOUT"), message
        assert "polyflake.custom_layouts" in message and says in message, message
    assert "polyflake.custom_layouts" in cluster.log()
