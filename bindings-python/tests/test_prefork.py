"""A pre-forking server (gunicorn, 4 workers) given one identity variable:
each worker builds its generator after the fork, as the docs tell it to."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import gunicorn  # noqa: F401  (installed by scripts/test-python.sh; the server runs as a child)

APP = """
import json, os
import polyflake

# No --preload: each worker imports this after the fork.
gen = polyflake.Generator.from_env("snowflake")
ids = gen.next_ids(20000)
with open(os.path.join(os.environ["OUT_DIR"], f"{os.getpid()}.json"), "w") as out:
    json.dump({"node": dict(gen.node_fields)["node_id"], "ids": [str(i) for i in ids]}, out)


def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"ok"]
"""


def _serve(tmp_path: Path, variables: dict[str, str], files: int) -> tuple[list[dict], str]:
    (tmp_path / "app.py").write_text(APP)
    out = tmp_path / "out"
    out.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("POLYFLAKE_")}
    env.update(variables, POLYFLAKE_STATE_DIR=str(tmp_path / "state"), OUT_DIR=str(out))
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--workers", "4", "--bind", "127.0.0.1:0",
         "--graceful-timeout", "5", "--chdir", str(tmp_path), "app:app"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while len(list(out.glob("*.json"))) < files and server.poll() is None:
        assert time.monotonic() < deadline, "gunicorn's workers did not start within 60 s"
        time.sleep(0.05)
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
    log, _ = server.communicate(timeout=60)
    return [json.loads(p.read_text()) for p in out.glob("*.json")], log


def test_one_identity_variable_serves_one_worker_and_refuses_the_rest(tmp_path: Path) -> None:
    workers, log = _serve(tmp_path, {"POLYFLAKE_NODE_ID": "5"}, files=4)
    assert len(workers) <= 1, "two workers issued IDs under one identity"
    assert "LeaseLostError" in log and "is held by a live process on this host" in log, log


def test_worker_bits_give_every_worker_its_own_value(tmp_path: Path) -> None:
    variables = {"POLYFLAKE_NODE_ID": "5", "POLYFLAKE_WORKER_BITS": "2"}
    workers, log = _serve(tmp_path, variables, files=4)
    assert len(workers) == 4, log
    assert sorted(w["node"] for w in workers) == [20, 21, 22, 23]
    ids = [i for w in workers for i in w["ids"]]
    assert len(ids) == 80000
    assert len(set(ids)) == len(ids), "duplicate IDs across workers"
