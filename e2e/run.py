"""The whole architecture under faults (make e2e; make test-e2e is the short
run): a real three-member etcd cluster, a real PostgreSQL, three `polyflake
serve` replicas (each reaching etcd through a proxy of its own that the run
can cut, e2e/proxy.py), order services in Python and Node fetching batches
from them, and an in-process Python writer on the same etcd, all on
127.0.0.1. Faults are scripted and timed: processes killed and paused, etcd
paused and restarted, a clock stepped, a replica partitioned from etcd while
a newcomer waits for its value (e2e/newcomer.py), etcd's leader killed. At
the end every ID, every row and etcd's own record of who held which value
are checked, and a report is printed.

Every process is started here and stopped by its PID. This file is the
run's order; the parts are settings.py, records.py, probes.py, processes.py,
watch.py, faults.py, checks.py and report.py."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from checks import check, load
from faults import faults
from processes import Run, stop_all
from report import report
from settings import FULL, HERE, SHORT
from watch import Watch, wait_ready


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--full", action="store_true", help="production TTL, longer phases"
    )
    parser.add_argument("--cli", required=True)
    parser.add_argument("--node-dir", required=True)
    parser.add_argument("--report", help="write the report's figures here as JSON")
    parser.add_argument(
        "--rates", help="r4's clock rates instead of the run's (0.6,1.2)", default=None
    )
    args = parser.parse_args()
    settings = FULL if args.full else SHORT
    if args.rates:
        settings.rates = [float(r) for r in args.rates.split(",")]
    base = Path(tempfile.mkdtemp(prefix="polyflake-e2e-"))
    run = Run(base, settings, Path(args.cli), Path(args.node_dir))
    started = time.monotonic()
    watch: Watch | None = None
    try:
        print(f"e2e: {'full' if args.full else 'short'} run in {base}", flush=True)
        run.start_etcd()
        run.start_postgres()
        run.create_orders()
        for name in ("r1", "r2", "r3"):
            run.start_replica(name)
        wait_ready(run, ["r1", "r2", "r3"])
        watch = Watch(run)
        watch.start()
        replicas = ",".join(f"{n}={run.url(n)}" for n in ("r1", "r2", "r3"))
        clients = [
            run.spawn(
                [
                    sys.executable,
                    str(HERE / "client.py"),
                    "--replicas",
                    replicas,
                    "--dsn",
                    run.dsn,
                    "--out",
                    str(base / "python.jsonl"),
                ],
                base / "python.log",
            ),
            run.spawn(
                [
                    "node",
                    str(run.node_dir / "client.mjs"),
                    "--replicas",
                    replicas,
                    "--dsn",
                    run.dsn,
                    "--out",
                    str(base / "node.jsonl"),
                ],
                base / "node.log",
            ),
            run.spawn(
                [
                    sys.executable,
                    str(HERE / "embedded.py"),
                    "--dsn",
                    run.dsn,
                    "--out",
                    str(base / "embedded.jsonl"),
                ],
                base / "embedded.log",
                env=run.replica_env(),
            ),
        ]
        run.embedded_pid = clients[2].pid
        timings = faults(run, watch)
        run.event("clients stop (SIGTERM)")
        for c in clients:
            c.terminate()
        for c in clients:
            if c.wait(timeout=30) != 0:
                raise SystemExit(f"e2e: a client failed: {c.args}; see {base}")
        watch.stopping.set()
        watch.join()
        records = []
        for name in ("python", "node", "embedded", *(n.name for n in run.newcomers)):
            records += [r for r in load(base / f"{name}.jsonl") if "status" in r]
        failures, figures = check(run, watch, records, timings)
        report(run, timings, figures, failures, time.monotonic() - started, args.report)
        if failures:
            print(f"e2e: FAILED; the processes' logs are in {base}")
            return 1
        return 0
    finally:
        stop_all(run)
        if not os.environ.get("POLYFLAKE_E2E_KEEP"):
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
