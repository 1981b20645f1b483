"""make bench-pg: the B-tree argument, measured. The same orders table and
the same N rows under each primary key, in one PostgreSQL (defaults, fsync
on, the polyflake extension preloaded), one after another: a Snowflake
BIGINT made by the server (`polyflake.next_id()` as the column's DEFAULT)
and by the client (the Python library), `bigserial`, an Instagram-style
PL/pgSQL `next_id()` (written here, after Instagram's 2012 description), a
random UUIDv4 (`gen_random_uuid()`) and a time-ordered UUIDv7 (made by the
client: PostgreSQL 15 has no `uuidv7()`). Reports insert rate, index size,
leaf density and WAL written, as ratios to the server's Snowflake key, and
the cost of each server-side key function alone beside `nextval()`, into
docs/benchmarks.md (section postgres)."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import polyflake
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from bench_report import replace_section
from processes import Run, stop_all

BATCH = 10_000
ALONE = 1_000_000

# The shape Instagram described in 2012: 41 bits of milliseconds since their
# epoch, a 13-bit shard, the low 10 bits of a sequence. It does not wait when
# a millisecond's 1,024 values run out: the sequence wraps.
INSTAGRAM = """
CREATE SEQUENCE insta_seq;
CREATE FUNCTION insta_next_id() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    epoch_ms CONSTANT bigint := 1314220021721;
    shard CONSTANT bigint := 5;
    ms bigint := floor(extract(epoch FROM clock_timestamp()) * 1000);
BEGIN
    RETURN ((ms - epoch_ms) << 23) | (shard << 10) | (nextval('insta_seq') % 1024);
END $$;
"""

# kind: (column type with its default, whether the client sends the key)
KEYS = {
    "next_id": ("BIGINT PRIMARY KEY DEFAULT polyflake.next_id()", False),
    "client": ("BIGINT PRIMARY KEY", True),
    "bigserial": ("bigserial PRIMARY KEY", False),
    "instagram": ("BIGINT PRIMARY KEY DEFAULT insta_next_id()", False),
    "uuid7": ("uuid PRIMARY KEY", True),
    "uuid4": ("uuid PRIMARY KEY DEFAULT gen_random_uuid()", False),
}


class Uuid7:
    """UUIDv7 as RFC 9562 makes them monotonic (section 6.2, method 1): 48
    bits of Unix ms, version 7, a 12-bit counter in rand_a that restarts each
    millisecond (and carries into the next when spent), 62 random bits."""

    def __init__(self) -> None:
        self.ms = 0
        self.counter = 0

    def take(self, n: int) -> list[uuid.UUID]:
        random = os.urandom(8 * n)
        out = []
        for i in range(n):
            now = time.time_ns() // 1_000_000
            if now > self.ms:
                self.ms, self.counter = now, 0
            else:
                self.counter += 1
                if self.counter > 0xFFF:
                    self.ms, self.counter = self.ms + 1, 0
            rand_b = int.from_bytes(random[8 * i : 8 * i + 8], "big") & ((1 << 62) - 1)
            value = (
                (self.ms << 80)
                | (0x7 << 76)
                | (self.counter << 64)
                | (0b10 << 62)
                | rand_b
            )
            out.append(uuid.UUID(int=value))
        return out


def fill(db: psycopg.Connection, kind: str, n: int) -> tuple[float, float, int]:
    """Seconds in all, those of the client's key generation, and the rows the
    table holds (fewer than n when a key came twice: ON CONFLICT skips it)."""
    table = f"k_{kind}"
    key, sent = KEYS[kind]
    db.execute(
        f"CREATE TABLE {table} (id {key}, created_at timestamptz NOT NULL,"
        " client text NOT NULL, replica text NOT NULL)"
    )
    generator = polyflake.Generator("twitter", datacenter_id=1, machine_id=1)
    v7 = Uuid7()
    columns = (
        "id, created_at, client, replica" if sent else "created_at, client, replica"
    )
    started = time.perf_counter()
    making = 0.0
    for done in range(0, n, BATCH):
        count = min(BATCH, n - done)
        created = datetime.now(UTC)
        keys: list[object] = []
        made = time.perf_counter()
        if kind == "client":
            keys = list(generator.next_ids(count))
        elif kind == "uuid7":
            keys = list(v7.take(count))
        making += time.perf_counter() - made
        # COPY has no ON CONFLICT: a key made twice (the PL/pgSQL function's
        # wrapped sequence) would abort the batch, so rows go through a
        # temporary table of the batch and INSERT … ON CONFLICT DO NOTHING.
        with db.transaction(), db.cursor() as cursor:
            cursor.execute(
                f"CREATE TEMP TABLE batch (LIKE {table} INCLUDING DEFAULTS) ON COMMIT DROP"
                if sent
                else "CREATE TEMP TABLE batch (created_at timestamptz, client text, replica text) ON COMMIT DROP"
            )
            with cursor.copy(f"COPY batch ({columns}) FROM STDIN") as copy:
                if keys:
                    for k in keys:
                        copy.write_row((k, created, "bench", "r1"))
                else:
                    for _ in range(count):
                        copy.write_row((created, "bench", "r1"))
            cursor.execute(
                f"INSERT INTO {table} ({columns}) SELECT {columns} FROM batch ON CONFLICT DO NOTHING"
            )
    seconds = time.perf_counter() - started
    rows = db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    return seconds, making, rows


def alone(db: psycopg.Connection, call: str) -> tuple[float, int]:
    """Nanoseconds per call of `call` in one statement of ALONE calls (best of
    3), and how many values one more such statement repeated."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        db.execute(f"SELECT count({call}) FROM generate_series(1, {ALONE})").fetchone()
        best = min(best, time.perf_counter() - started)
    twice = db.execute(
        f"SELECT count(*) - count(DISTINCT v) FROM (SELECT {call} AS v"
        f" FROM generate_series(1, {ALONE})) t"
    ).fetchone()[0]
    return best / ALONE * 1e9, twice


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--cli", default="")
    parser.add_argument("--node-dir", default="")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="polyflake-bench-pg-"))
    run = Run(base, None, Path(), Path())  # type: ignore[arg-type]
    try:
        run.start_postgres(
            durable=True,
            settings={
                "shared_preload_libraries": "polyflake",
                "polyflake.state_dir": str(base / "pg" / "state"),
            },
        )
        results = {}
        with psycopg.connect(run.dsn, autocommit=True) as db:
            db.execute("CREATE EXTENSION IF NOT EXISTS pgstattuple")
            db.execute("CREATE EXTENSION IF NOT EXISTS polyflake")
            db.execute(INSTAGRAM)
            for kind in KEYS:
                db.execute("CHECKPOINT")
                wal_before = db.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
                seconds, making, rows = fill(db, kind, args.rows)
                wal = db.execute(
                    "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), %s)", (wal_before,)
                ).fetchone()[0]
                index, density = db.execute(
                    "SELECT pg_relation_size(%s), avg_leaf_density FROM pgstatindex(%s)",
                    (f"k_{kind}_pkey", f"k_{kind}_pkey"),
                ).fetchone()
                results[kind] = (
                    args.rows / seconds,
                    args.rows / (seconds - making),
                    index,
                    float(density),
                    float(wal),
                    args.rows - rows,
                )
                print(
                    f"  {kind}: {args.rows / seconds:,.0f} rows/s, index {index / 2**20:.1f} MiB,"
                    f" {args.rows - rows} keys made twice"
                )
            db.execute("CREATE SEQUENCE plain_seq")
            calls = {
                "`polyflake.next_id()`": alone(db, "polyflake.next_id()"),
                "`nextval()` (a sequence, as `bigserial`)": alone(
                    db, "nextval('plain_seq')"
                ),
                "Instagram-style PL/pgSQL `next_id()`": alone(db, "insta_next_id()"),
                "`gen_random_uuid()`": alone(db, "gen_random_uuid()"),
                "the statement with `1` (the floor)": alone(db, "1"),
            }
    finally:
        stop_all(run)
    names = {
        "next_id": "Snowflake `BIGINT`, `DEFAULT polyflake.next_id()` (the extension)",
        "client": "Snowflake `BIGINT` made by the client (polyflake `next_ids`)",
        "bigserial": "`bigserial` (a sequence)",
        "instagram": "Instagram-style PL/pgSQL `next_id()` (`BIGINT`)",
        "uuid7": "UUIDv7 (`uuid`, made by the client, monotonic per RFC 9562 6.2)",
        "uuid4": "UUIDv4 (`uuid`, `gen_random_uuid()`)",
    }
    rate0, db0, index0, _, wal0, _ = results["next_id"]
    intro = (
        f"`make bench-pg`: {args.rows:,} rows into the same orders table"
        " (`id, created_at timestamptz, client text, replica text`) under each key, COPY into a"
        f" temporary table then `INSERT … ON CONFLICT DO NOTHING` in transactions of {BATCH:,}"
        " rows, one PostgreSQL 15 with its defaults (fsync on) and polyflake preloaded, one"
        ' table after another; key generation included. "Made twice" counts keys the'
        " generator repeated (rows lost to ON CONFLICT)."
    )
    lines = [
        intro,
        "",
        (
            "| primary key | rows/s | vs next_id | rows/s, client's key making excluded | vs next_id"
            " | index | vs next_id | leaf density | WAL written | made twice |"
        ),
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for kind, (rate, db_rate, index, density, wal, twice) in results.items():
        lines.append(
            f"| {names[kind]} | {rate:,.0f} | {rate / rate0:.2f}× | {db_rate:,.0f} | {db_rate / db0:.2f}×"
            f" | {index / 2**20:.1f} MiB | {index / index0:.2f}× | {density:.0f}%"
            f" | {wal / 2**20:.0f} MiB ({wal / wal0:.2f}×) | {twice:,} |"
        )
    ours = calls["`polyflake.next_id()`"][0]
    lines += [
        "",
        (
            f"Each key function alone, in one statement of {ALONE:,} calls (`SELECT count(f())"
            " FROM generate_series(…)`, best of 3), in the same run:"
        ),
        "",
        "| function | ns per call | ÷ `polyflake.next_id()`'s (below 1: faster) | values repeated in 1,000,000 |",
        "|---|---|---|---|",
    ]
    for name, (ns, twice) in calls.items():
        repeated = (
            "(all one value)" if name.startswith("the statement") else f"{twice:,}"
        )
        lines.append(f"| {name} | {ns:,.0f} | {ns / ours:.2f}× | {repeated} |")
    lines += [
        "",
        (
            "`twitter`, `next_id()`'s default layout, holds 4,096 IDs per millisecond per node:"
            " 244 ns per ID is its ceiling, so `next_id()` alone runs at the layout's limit and"
            " waits there rather than wrap. The PL/pgSQL function wraps its 1,024 values per"
            " millisecond instead, which is where its repeats come from."
        ),
    ]
    replace_section("postgres", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
