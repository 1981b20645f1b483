"""An order service in Python: fetches ID batches from the replicas round
robin, moves to the next replica on 503 or no answer, and inserts orders into
PostgreSQL with psycopg. Every answer is recorded as one JSON line for the
run's checks. Stops at SIGTERM after the batch in hand."""

from __future__ import annotations

import argparse
import http.client
import json
import time
from typing import Any

import psycopg
from orders import Stop, insert, now_ms


def fetch(address: str, count: int, timeout: float) -> tuple[int, dict[str, Any]]:
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        connection.request("GET", f"/v1/ids?count={count}")
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--replicas", required=True, help="name=host:port,...")
    parser.add_argument("--dsn", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--name", default="python")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--pause-ms", type=int, default=5)
    args = parser.parse_args()
    stop = Stop()
    replicas = [r.split("=", 1) for r in args.replicas.split(",")]
    turn = 0
    with psycopg.connect(args.dsn, autocommit=True) as db, open(args.out, "w") as out:
        while not stop.requested:
            name, address = replicas[turn % len(replicas)]
            turn += 1
            record: dict[str, Any] = {
                "client": args.name,
                "replica": name,
                "sent": now_ms(),
            }
            try:
                status, body = fetch(address, args.count, timeout=1.0)
            except (OSError, ValueError) as e:
                status, body = 0, {"code": "NO_ANSWER", "message": str(e)}
            record["received"] = now_ms()
            record["status"] = status
            if status != 200:
                record["code"] = body.get("code", "?")
                out.write(json.dumps(record) + "\n")
                continue  # the next replica, at once
            record["ids"] = body["ids"]
            insert(db, [int(i) for i in body["ids"]], record)
            out.write(json.dumps(record) + "\n")
            time.sleep(args.pause_ms / 1000)


if __name__ == "__main__":
    main()
