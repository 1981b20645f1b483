"""next_id() and next_ids(n): IDs minted by the server, across connections,
restarts, clocks stepped back and clusters of one host."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path

import psycopg
import pytest
from conftest import Cluster, faketime_library

ROOT = Path(__file__).resolve().parents[2]
ROWS = 100_000
CONNECTIONS = 8


def error_code(exc: psycopg.Error) -> str:
    return str(exc.diag.message_primary).split(":", 1)[0]


def identity(conn: psycopg.Connection, layout: str) -> dict:
    rows = conn.execute(
        "SELECT nodes, source, error FROM polyflake.identities() WHERE layout = %s",
        (layout,),
    ).fetchall()
    assert len(rows) == 1, rows
    nodes, source, error = rows[0]
    return {"nodes": nodes, "source": source, "error": error}


def test_next_id_is_an_id_of_the_servers_identity(sql: psycopg.Connection) -> None:
    twitter = identity(sql, "twitter")
    assert twitter["error"] is None and "local lease" in twitter["source"], twitter
    first, second = (
        sql.execute("SELECT polyflake.next_id()").fetchone()[0] for _ in range(2)
    )
    assert second > first
    decoded = sql.execute(
        "SELECT polyflake.decode(%s, 'twitter')", (first,)
    ).fetchone()[0]
    assert {k: decoded[k] for k in twitter["nodes"]} == twitter["nodes"]
    now_ms = sql.execute(
        "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint"
    ).fetchone()[0]
    assert abs(int(decoded["timestamp_ms"]) - now_ms) < 5_000
    # The second layout of polyflake.layouts has a slot and identity of its own.
    sony = sql.execute("SELECT polyflake.next_id('sonyflake')").fetchone()[0]
    parts = sql.execute("SELECT polyflake.decode(%s, 'sonyflake')", (sony,)).fetchone()[
        0
    ]
    assert parts["machine_id"] == identity(sql, "sonyflake")["nodes"]["machine_id"]


def test_a_layout_the_server_does_not_issue_is_refused(sql: psycopg.Connection) -> None:
    with pytest.raises(psycopg.errors.InvalidParameterValue) as err:
        sql.execute("SELECT polyflake.next_id('discord')")
    assert error_code(err.value) == "INVALID_ARGUMENT"
    assert "polyflake.layouts" in str(err.value)
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        sql.execute("SELECT polyflake.next_id('no-such-layout')")


def test_next_ids_is_a_set_in_increasing_order(sql: psycopg.Connection) -> None:
    ids = [r[0] for r in sql.execute("SELECT polyflake.next_ids(10000)").fetchall()]
    assert len(ids) == 10000 == len(set(ids))
    assert ids == sorted(ids)
    assert sql.execute("SELECT count(*) FROM polyflake.next_ids(0)").fetchone()[0] == 0
    for bad in ("-1", "16777217"):
        with pytest.raises(psycopg.Error) as err:
            sql.execute(f"SELECT polyflake.next_ids({bad})")
        assert error_code(err.value) in {"INVALID_ARGUMENT", "FIELD_OUT_OF_RANGE"}


def test_eight_connections_insert_100000_rows_each_without_one_collision(
    dsn: str,
) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS orders")
        conn.execute(
            "CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT polyflake.next_id(), "
            "conn int NOT NULL, n int NOT NULL)"
        )
    errors: list[BaseException] = []
    start = threading.Barrier(CONNECTIONS)

    def insert(c: int) -> None:
        try:
            with psycopg.connect(dsn, autocommit=True) as conn:
                start.wait()
                # Row by row, so that the connections' calls interleave.
                conn.execute(
                    "INSERT INTO orders (conn, n) SELECT %s, g FROM generate_series(1, %s) g",
                    (c, ROWS),
                )
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=insert, args=(c,)) for c in range(CONNECTIONS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [], errors  # a unique_violation would be here
    with psycopg.connect(dsn, autocommit=True) as conn:
        total, distinct = conn.execute(
            "SELECT count(*), count(DISTINCT id) FROM orders"
        ).fetchone()
        assert total == distinct == CONNECTIONS * ROWS
        # Per connection, in insert order, the IDs increase.
        out_of_order = conn.execute(
            "SELECT count(*) FROM (SELECT id, lag(id) OVER (PARTITION BY conn ORDER BY n) AS prev "
            "FROM orders) t WHERE id <= prev"
        ).fetchone()[0]
        assert out_of_order == 0
        # The connections did run at once: their IDs interleave in time.
        overlapping = conn.execute(
            "SELECT count(*) FROM (SELECT conn, min(id) lo, max(id) hi FROM orders GROUP BY conn) a "
            "JOIN (SELECT conn, min(id) lo, max(id) hi FROM orders GROUP BY conn) b "
            "ON a.conn < b.conn AND a.lo < b.hi AND b.lo < a.hi"
        ).fetchone()[0]
        assert overlapping > 0
        conn.execute("DROP TABLE orders")


def test_an_immediate_restart_onto_a_clock_stepped_back_never_reuses_time(
    new_cluster,
) -> None:
    cluster: Cluster = new_cluster()
    cluster.start()
    with cluster.connect() as conn:
        conn.execute("SELECT polyflake.next_ids(50000)").fetchall()
        last = conn.execute("SELECT polyflake.next_id()").fetchone()[0]
    # As after a crash: no shutdown checkpoint, no clean exit of the generator.
    cluster.stop("immediate")
    # The clock is 30 s behind: every ID it would issue now lies below `last`.
    back = {
        "LD_PRELOAD": faketime_library(),
        "FAKETIME": "-30s",
        "FAKETIME_DONT_RESET": "1",
    }
    cluster.start(env=back)
    with cluster.connect() as conn:
        behind = conn.execute(
            "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint"
        ).fetchone()[0]
        last_ms = int(
            conn.execute("SELECT polyflake.decode(%s, 'twitter')", (last,)).fetchone()[
                0
            ]["timestamp_ms"]
        )
        assert behind < last_ms - 20_000, (
            "libfaketime did not step the server's clock back"
        )
        # The default policy (wait up to 5 ms) refuses: the clock is 30 s behind the mark.
        with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState) as err:
            conn.execute("SELECT polyflake.next_id()")
        assert error_code(err.value) == "CLOCK_MOVED_BACKWARDS"
    cluster.stop("immediate")
    # With the logical policy the server issues on, above the mark.
    cluster.start({"polyflake.on_clock_backwards": "logical"}, env=back)
    with cluster.connect() as conn:
        after = [
            r[0] for r in conn.execute("SELECT polyflake.next_ids(1000)").fetchall()
        ]
    assert min(after) > last
    cluster.stop("immediate")
    # Back on the true clock, which is now behind the IDs that ran ahead (and their mark,
    # written a lead past them): a policy that waits long enough issues past them.
    cluster.start({"polyflake.max_backwards_ms": "10000"})
    with cluster.connect() as conn:
        assert conn.execute("SELECT polyflake.next_id()").fetchone()[0] > max(after)


def test_two_clusters_of_one_host_hold_different_node_values(
    new_cluster, state_dir: Path
) -> None:
    a: Cluster = new_cluster()
    b: Cluster = new_cluster()
    a.start()
    b.start()
    with a.connect() as ca, b.connect() as cb:
        ia, ib = identity(ca, "twitter"), identity(cb, "twitter")
        assert ia["error"] is None and ib["error"] is None
        assert ia["nodes"] != ib["nodes"]
        ida = ca.execute("SELECT polyflake.next_id()").fetchone()[0]
        idb = cb.execute("SELECT polyflake.next_id()").fetchone()[0]
        assert ida != idb
    # A third cluster told to use a's value is refused while a holds it.
    number = ia["nodes"]["datacenter_id"] * 32 + ia["nodes"]["machine_id"]
    c: Cluster = new_cluster()
    c.start({"polyflake.node_id": str(number)})
    with c.connect() as cc:
        held = identity(cc, "twitter")
        assert held["nodes"] is None and held["error"].startswith("LEASE_LOST"), held
        with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState) as err:
            cc.execute("SELECT polyflake.next_id()")
        assert error_code(err.value) == "LEASE_LOST"
        assert "held by a live process" in str(err.value)
    c.stop()
    # The same value from the variable and the setting at once: refused, naming both.
    c.start({"polyflake.node_id": "900"}, env={"POLYFLAKE_NODE_ID": "901"})
    with c.connect() as cc:
        assert "polyflake.node_id" in identity(cc, "twitter")["error"]
    c.stop()
    # Once a stops, its value is free.
    a.stop()
    c.start({"polyflake.node_id": str(number)})
    with c.connect() as cc:
        assert identity(cc, "twitter")["nodes"] == ia["nodes"]
        assert cc.execute("SELECT polyflake.next_id()").fetchone()[0] > ida


def test_without_preloading_next_id_says_what_to_do(new_cluster) -> None:
    cluster: Cluster = new_cluster()
    cluster.start(preload=False)
    with cluster.connect() as conn:
        with pytest.raises(psycopg.errors.InvalidParameterValue) as err:
            conn.execute("SELECT polyflake.next_id()")
        assert "shared_preload_libraries" in str(err.value)
        # Everything that needs no generator works.
        assert conn.execute("SELECT polyflake.format(1, 'hex')").fetchone()[0]


def test_partitions_by_id_with_bounds_from_min_id(sql: psycopg.Connection) -> None:
    sql.execute("DROP TABLE IF EXISTS events")
    sql.execute(
        "CREATE TABLE events (id bigint DEFAULT polyflake.next_id() PRIMARY KEY, body text) "
        "PARTITION BY RANGE (id)"
    )
    days = sql.execute(
        "SELECT d::date FROM generate_series(current_date - 1, current_date + 1, '1 day') d"
    ).fetchall()
    for (day,) in days:
        sql.execute(
            f"CREATE TABLE events_{day:%Y%m%d} PARTITION OF events FOR VALUES "
            f"FROM (polyflake.min_id('{day}'::timestamptz, 'twitter')) "
            f"TO (polyflake.min_id('{day}'::timestamptz + interval '1 day', 'twitter'))"
        )
    sql.execute(
        "INSERT INTO events (body) SELECT 'e' || g FROM generate_series(1, 1000) g"
    )
    where = sql.execute(
        "SELECT tableoid::regclass::text, count(*) FROM events GROUP BY 1"
    ).fetchall()
    today = sql.execute("SELECT to_char(current_date, 'YYYYMMDD')").fetchone()[0]
    # clock_timestamp's day in the session's time zone (UTC in the suite) is the partition's.
    assert where == [(f"events_{today}", 1000)]
    # A time range on the key alone: the planner prunes to today's partition.
    plan = "\n".join(
        r[0]
        for r in sql.execute(
            "EXPLAIN SELECT * FROM events WHERE id >= polyflake.min_id(now() - interval '1 hour', 'twitter') "
            "AND id <= polyflake.max_id(now(), 'twitter')"
        ).fetchall()
    )
    assert f"events_{today}" in plan
    sql.execute("DROP TABLE events")


def cli() -> str:
    """The CLI scripts/test-postgres.sh names (scripts/artifact.sh's), else cargo's."""
    given = os.environ.get("POLYFLAKE_CLI")
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    path = Path(given) if given else target / "debug" / "polyflake"
    assert path.is_file(), f"{path} is missing (make test-postgres builds it)"
    return str(path)


def test_sql_the_cli_and_python_decode_one_minted_id_alike(
    sql: psycopg.Connection,
) -> None:
    import polyflake

    minted = sql.execute("SELECT polyflake.next_id('twitter')").fetchone()[0]
    in_sql = sql.execute(
        "SELECT polyflake.decode(%s, 'twitter')", (minted,)
    ).fetchone()[0]
    unsigned = minted % (1 << 64)
    from_cli = json.loads(
        subprocess.run(
            [cli(), "decode", "--layout", "twitter", "--json", str(unsigned)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    python = polyflake.decode(unsigned, "twitter").to_dict()
    fields = {"timestamp_ms", "datacenter_id", "machine_id", "sequence"}
    assert set(python) == fields
    assert (
        {k: int(in_sql[k]) for k in fields}
        == {k: int(from_cli[k]) for k in fields}
        == python
    )
