"""What the Python writers of the end-to-end run share: a stop flag set by
SIGTERM, the clock they stamp records with, and the insert of one batch of
orders (a primary-key violation is recorded, never retried)."""

from __future__ import annotations

import signal
import time
from datetime import UTC, datetime
from typing import Any

import psycopg


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
