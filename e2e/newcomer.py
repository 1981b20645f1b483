"""A newcomer during a partition: a process straight to etcd that may hold
one node value only, the one a cut-off replica holds. It asks for it every
100 ms until etcd has expired the replica's lease (or it is stopped), then
writes orders under it as the in-process writer does. Its first line says
when it got the value; the run checks that this came after etcd's expiry and
that its IDs lie above the cut-off replica's last."""

from __future__ import annotations

import argparse
import json
import os
import time

import polyflake
import psycopg
from orders import Stop, now_ms, write_batches
from polyflake.errors import PolyflakeError

# The run's lease settings, as the replicas read them from the environment.
DURATIONS = {
    "ttl": "POLYFLAKE_ETCD_TTL_MS",
    "keep_alive": "POLYFLAKE_ETCD_KEEP_ALIVE_MS",
    "safety_margin": "POLYFLAKE_ETCD_SAFETY_MARGIN_MS",
    "request_timeout": "POLYFLAKE_ETCD_REQUEST_TIMEOUT_MS",
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dsn", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--node", type=int, required=True)
    args = parser.parse_args()
    stop = Stop()
    durations = {
        k: int(os.environ[v]) / 1000 for k, v in DURATIONS.items() if v in os.environ
    }
    refusals: dict[str, int] = {}
    generator = None
    with open(args.out, "w") as out:
        while generator is None and not stop.requested:
            try:
                # claim(): the value is taken now, or refused now.
                generator = polyflake.Generator.from_etcd(
                    "twitter",
                    os.environ["POLYFLAKE_ETCD_ENDPOINTS"],
                    prefix=os.environ["POLYFLAKE_ETCD_PREFIX"],
                    node_range=(args.node, args.node + 1),
                    **durations,
                ).claim()
            except PolyflakeError as e:
                refusals[e.code] = refusals.get(e.code, 0) + 1
                time.sleep(0.1)
        out.write(
            json.dumps(
                {"claimed": now_ms() if generator else None, "refusals": refusals}
            )
            + "\n"
        )
        out.flush()
        if generator is None:
            return
        with psycopg.connect(args.dsn, autocommit=True) as db:
            write_batches(generator, db, out, args.name, stop)


if __name__ == "__main__":
    main()
