"""make bench-pg: the B-tree argument, measured. The same orders table and
the same N rows under three primary keys, in one PostgreSQL (defaults,
fsync on), one after another: a Snowflake BIGINT from polyflake, a random
UUIDv4 (`gen_random_uuid()`, made by the server) and a time-ordered UUIDv7
(made by the client: PostgreSQL 15 has no `uuidv7()`). Reports insert rate,
index size, leaf density and WAL written, as ratios to the Snowflake key,
into docs/benchmarks.md (section postgres)."""

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
from run import Run, stop_all

BATCH = 10_000


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


def fill(db: psycopg.Connection, kind: str, n: int) -> tuple[float, float]:
    """Seconds in all, and of those the client's key generation."""
    table = f"k_{kind}"
    key = "BIGINT PRIMARY KEY" if kind == "snowflake" else "uuid PRIMARY KEY"
    if kind == "uuid4":
        key += " DEFAULT gen_random_uuid()"
    db.execute(
        f"CREATE TABLE {table} (id {key}, created_at timestamptz NOT NULL,"
        " client text NOT NULL, replica text NOT NULL)"
    )
    generator = polyflake.Generator("twitter", datacenter_id=1, machine_id=1)
    v7 = Uuid7()
    columns = (
        "created_at, client, replica"
        if kind == "uuid4"
        else "id, created_at, client, replica"
    )
    started = time.perf_counter()
    making = 0.0
    for done in range(0, n, BATCH):
        count = min(BATCH, n - done)
        created = datetime.now(UTC)
        keys: list[object]
        made = time.perf_counter()
        if kind == "snowflake":
            keys = list(generator.next_ids(count))
        elif kind == "uuid7":
            keys = list(v7.take(count))
        else:
            keys = []
        making += time.perf_counter() - made
        with (
            db.transaction(),
            db.cursor() as cursor,
            cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy,
        ):
            if keys:
                for k in keys:
                    copy.write_row((k, created, "bench", "r1"))
            else:
                for _ in range(count):
                    copy.write_row((created, "bench", "r1"))
    return time.perf_counter() - started, making


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--cli", default="")
    parser.add_argument("--node-dir", default="")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="polyflake-bench-pg-"))
    run = Run(base, None, Path(), Path())  # type: ignore[arg-type]
    try:
        run.start_postgres(durable=True)
        results = {}
        with psycopg.connect(run.dsn, autocommit=True) as db:
            db.execute("CREATE EXTENSION IF NOT EXISTS pgstattuple")
            for kind in ("snowflake", "uuid7", "uuid4"):
                db.execute("CHECKPOINT")
                wal_before = db.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
                seconds, making = fill(db, kind, args.rows)
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
                )
                print(
                    f"  {kind}: {args.rows / seconds:,.0f} rows/s, index {index / 2**20:.1f} MiB"
                )
    finally:
        stop_all(run)
    names = {
        "snowflake": "Snowflake `BIGINT` (polyflake `next_ids`)",
        "uuid7": "UUIDv7 (`uuid`, made by the client, monotonic per RFC 9562 6.2)",
        "uuid4": "UUIDv4 (`uuid`, `gen_random_uuid()`)",
    }
    rate0, db0, index0, _, wal0 = results["snowflake"]
    intro = (
        f"`make bench-pg`: {args.rows:,} rows into the same orders table"
        " (`id, created_at timestamptz, client text, replica text`) under each key, COPY in"
        f" transactions of {BATCH:,} rows, one PostgreSQL 15 with its defaults (fsync on),"
        " one table after another; key generation included."
    )
    lines = [
        intro,
        "",
        (
            "| primary key | rows/s | vs Snowflake | rows/s, key making excluded | vs Snowflake"
            " | index | vs Snowflake | leaf density | WAL written |"
        ),
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for kind, (rate, db_rate, index, density, wal) in results.items():
        lines.append(
            f"| {names[kind]} | {rate:,.0f} | {rate / rate0:.2f}× | {db_rate:,.0f} | {db_rate / db0:.2f}×"
            f" | {index / 2**20:.1f} MiB"
            f" | {index / index0:.2f}× | {density:.0f}% | {wal / 2**20:.0f} MiB ({wal / wal0:.2f}×) |"
        )
    replace_section("postgres", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
