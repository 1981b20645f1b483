"""A pre-forking server (gunicorn, 4 workers) given one identity variable:
each worker builds its generator after the fork; and with --preload, the
natural code's module-level generator, made in the master before the fork,
serves in every worker (its identity is claimed at first use)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import gunicorn  # noqa: F401  (installed by scripts/test-python.sh; the server runs as a child)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from ports import free_port  # the repository's one free-port rule

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


# --preload: the master imports this once, then forks the workers. The
# generator is made in the master and used only in the workers' requests.
PRELOADED = """
import json, os, time
import polyflake

gen = polyflake.Generator.from_env("snowflake")


def app(environ, start_response):
    ids = gen.next_ids(1000)
    time.sleep(0.05)  # keep this worker busy, so that the others take requests
    name = f"{os.getpid()}-{ids[0]}.json"
    with open(os.path.join(os.environ["OUT_DIR"], name), "w") as out:
        json.dump({"pid": os.getpid(), "node": dict(gen.node_fields)["node_id"],
                   "ids": [str(i) for i in ids]}, out)
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"ok"]
"""


def _serve(
    tmp_path: Path, variables: dict[str, str], files: int, app: str = APP, preload: bool = False
) -> tuple[list[dict], str]:
    (tmp_path / "app.py").write_text(app)
    out = tmp_path / "out"
    out.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("POLYFLAKE_")}
    env.update(variables, POLYFLAKE_STATE_DIR=str(tmp_path / "state"), OUT_DIR=str(out))
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--workers", "4", "--bind", f"127.0.0.1:{port}",
         "--graceful-timeout", "5", "--chdir", str(tmp_path)]
        + (["--preload"] if preload else []) + ["app:app"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while preload and server.poll() is None and len(list(out.glob("*.json"))) < files:
        assert time.monotonic() < deadline, "gunicorn did not answer within 60 s"
        _requests(port, 8)
    while len(list(out.glob("*.json"))) < files and server.poll() is None:
        assert time.monotonic() < deadline, "gunicorn's workers did not start within 60 s"
        time.sleep(0.05)
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
    log, _ = server.communicate(timeout=60)
    return [json.loads(p.read_text()) for p in out.glob("*.json")], log


def _requests(port: int, concurrent: int) -> None:
    """`concurrent` requests at once; a refused connection (not listening
    yet) or an error answer is left to the caller's checks."""

    def one() -> None:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10).read()
        except OSError:
            pass

    threads = [threading.Thread(target=one) for _ in range(concurrent)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


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


def test_preload_a_module_level_generator_serves_every_worker(tmp_path: Path) -> None:
    # The trap of #30: made at import in the master, it used to claim node 20
    # there for ever; the workers' copies refused, three claimed 21-23 and
    # the fourth found every value held. Claimed at first use, the master
    # claims nothing and the four workers hold 20-23.
    variables = {"POLYFLAKE_NODE_ID": "5", "POLYFLAKE_WORKER_BITS": "2"}
    answers, log = _serve(tmp_path, variables, files=80, app=PRELOADED, preload=True)
    assert "Error" not in log, log
    by_pid: dict[int, set[int]] = {}
    for answer in answers:
        by_pid.setdefault(answer["pid"], set()).add(answer["node"])
    assert len(by_pid) == 4, f"only {len(by_pid)} workers answered: {log}"
    nodes = [node for held in by_pid.values() for node in held]
    assert sorted(nodes) == [20, 21, 22, 23], by_pid
    ids = [i for a in answers for i in a["ids"]]
    assert len(ids) == len(answers) * 1000
    assert len(set(ids)) == len(ids), "duplicate IDs across workers"
