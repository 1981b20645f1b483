"""Real `polyflake serve` replicas leasing from one real etcd, for the suites
that test a service-backed generator (Python, Node and Kotlin): one way to
start them, as tests/postgres_cluster.py is for PostgreSQL.

One etcd member from tests/etcd_cluster.py and N replicas of the given
`polyflake` binary (built with the `serve` feature), each with a state
directory of its own and told port 0 of 127.0.0.1 (the address it prints is
the one returned), all stopped by their PIDs. `start` returns once etcd is healthy and every replica
answers /readyz with 200 (it holds an identity). Only the standard library: a
suite in any language runs it as a script::

    python3 tests/service_cluster.py start --cli target/debug/polyflake --replicas 3
        # prints {"dir": …, "etcd": url, "replicas": [{"url": …, "pid": …}, …]}
    python3 tests/service_cluster.py stop DIR   # every process by its PID, DIR removed

A suite kills and pauses replicas itself (by the PIDs printed); `stop`
resumes a paused one before killing it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from etcd_cluster import Cluster, stop_dir
from pids import end

# `serve`'s first line, with the address the kernel gave its port 0.
SERVING = re.compile(r"serving layout \S+ on (http://127\.0\.0\.1:\d+)")


def status(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as e:
        return int(e.code)
    except OSError:
        return None


def spawn(
    args: list[str], log: Path, pids: Path, env: dict[str, str] | None = None
) -> int:
    with open(log, "wb") as out:
        process = subprocess.Popen(
            args, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
    with open(pids, "a") as f:
        f.write(f"{process.pid}\n")
    return process.pid


def wait_for(what: str, ok: Callable[[], bool], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not ok():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} within {seconds:.0f} s")
        time.sleep(0.05)


def served_at(log: Path) -> str | None:
    """The address a replica printed once it listens (it was told port 0)."""
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return None
    match = SERVING.search(text)
    return match.group(1) if match else None


def start(cli: str, replicas: int, layout: str) -> dict[str, object]:
    if not os.access(cli, os.X_OK):
        raise RuntimeError(
            f"{cli} is not an executable polyflake (cargo build -p polyflake-cli --features serve)"
        )
    base = Path(tempfile.mkdtemp(prefix="polyflake-service-"))
    pids = base / "pids"
    try:
        url = Cluster(1, base / "etcd").endpoints
        started = []
        for i in range(replicas):
            state = base / f"state-{i}"
            state.mkdir()
            env = {
                k: v for k, v in os.environ.items() if not k.startswith("POLYFLAKE_")
            }
            env.update(
                POLYFLAKE_STATE_DIR=str(state),
                POLYFLAKE_ETCD_ENDPOINTS=url,
                POLYFLAKE_ETCD_PREFIX="/service-cluster",
            )
            log = base / f"replica-{i}.log"
            pid = spawn(
                [cli, "serve", "--layout", layout, "--listen", "127.0.0.1:0"],
                log, pids, env,
            )  # fmt: skip
            wait_for(
                f"replica {i} did not listen",
                lambda log=log: served_at(log) is not None,
            )
            started.append({"url": served_at(log), "pid": pid})
        for replica in started:
            ready = f"{replica['url']}/readyz"
            wait_for(
                f"{replica['url']} was not ready", lambda url=ready: status(url) == 200
            )
    except BaseException:
        stop(base)
        raise
    return {"dir": str(base), "etcd": url, "replicas": started}


def stop(base: Path) -> None:
    pids = base / "pids"
    if pids.exists():
        for line in pids.read_text().split():
            end(int(line))
    stop_dir(base / "etcd")
    shutil.rmtree(base, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    up = commands.add_parser("start")
    up.add_argument("--cli", required=True)
    up.add_argument("--replicas", type=int, default=3)
    up.add_argument("--layout", default="twitter")
    down = commands.add_parser("stop")
    down.add_argument("dir")
    args = parser.parse_args()
    if args.command == "start":
        print(json.dumps(start(args.cli, args.replicas, args.layout)), flush=True)
    else:
        stop(Path(args.dir))


if __name__ == "__main__":
    sys.exit(main())
