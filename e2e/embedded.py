"""The third writer: IDs made in-process by the Python library on the same
etcd (`Generator.from_env` with POLYFLAKE_ETCD_ENDPOINTS), beside the service
path, inserted into the same table. Refusals (lease lost, clock) are
recorded and retried. Stops at SIGTERM after the batch in hand."""

from __future__ import annotations

import argparse
import json

import polyflake
import psycopg
from orders import Stop, write_batches


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dsn", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--pause-ms", type=int, default=5)
    args = parser.parse_args()
    stop = Stop()
    generator = polyflake.Generator.from_env("twitter")
    with psycopg.connect(args.dsn, autocommit=True) as db, open(args.out, "w") as out:
        out.write(json.dumps({"started": generator.identity_source}) + "\n")
        write_batches(generator, db, out, "embedded", stop, args.count, args.pause_ms)


if __name__ == "__main__":
    main()
