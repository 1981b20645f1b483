"""What the Python writers of the end-to-end run share: a stop flag set by
SIGTERM, the clock they stamp records with, the insert of one batch of
orders (a primary-key violation is recorded, never retried), and the loop of
a writer that makes its IDs in-process."""

from __future__ import annotations

import json
import signal
import time
from datetime import UTC, datetime
from typing import IO, Any

import polyflake
import psycopg
from polyflake.errors import PolyflakeError


class Stop:
    """Set by SIGTERM: the writer finishes the batch in hand, then exits."""

    def __init__(self) -> None:
        self.requested = False
        signal.signal(signal.SIGTERM, self.request)

    def request(self, *_: object) -> None:
        self.requested = True


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def insert(db: psycopg.Connection, ids: list[int], record: dict[str, Any]) -> None:
    """Inserts the batch as orders of `record`'s client and replica, now,
    and notes in `record` how many rows went in (or the violation)."""
    created = datetime.now(UTC)
    try:
        with (
            db.cursor() as cursor,
            cursor.copy(
                "COPY orders (id, created_at, client, replica) FROM STDIN"
            ) as copy,
        ):
            for id in ids:
                copy.write_row((id, created, record["client"], record["replica"]))
        record["inserted"] = len(ids)
    except psycopg.errors.UniqueViolation as e:
        record["inserted"] = 0
        record["db_error"] = "23505 " + str(e).splitlines()[0]


def write_batches(
    generator: polyflake.Generator,
    db: psycopg.Connection,
    out: IO[str],
    name: str,
    stop: Stop,
    count: int = 100,
    pause_ms: int = 5,
) -> None:
    """Until SIGTERM: a batch of `count` IDs from `generator`, inserted and
    recorded as one JSON line; a refusal (lease lost, clock) is recorded with
    its code and retried 50 ms later."""
    while not stop.requested:
        record: dict[str, Any] = {"client": name, "replica": name, "sent": now_ms()}
        try:
            ids = generator.next_ids(count)
        except PolyflakeError as e:
            record.update(received=now_ms(), status=503, code=e.code)
            out.write(json.dumps(record) + "\n")
            time.sleep(0.05)
            continue
        record.update(received=now_ms(), status=200, ids=[str(i) for i in ids])
        insert(db, ids, record)
        out.write(json.dumps(record) + "\n")
        time.sleep(pause_ms / 1000)
