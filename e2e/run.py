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

Every process is started here and stopped by its PID."""

from __future__ import annotations

import argparse
import base64
import bisect
import glob
import itertools
import json
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polyflake
import psycopg
from client import fetch
from proxy import Proxy

HERE = Path(__file__).resolve().parent
LAYOUT = "twitter"
# Its node fields with their widths, most significant first.
NODE_FIELDS = polyflake.Layout(LAYOUT).nodes
PREFIX = "/e2e"


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Settings:
    ttl_ms: int
    margin_ms: int
    keep_alive_ms: int
    warm_s: float
    gap_s: float
    etcd_down_s: float
    env: dict[str, str]
    # The partitions, in order: the proxy's fault on r2's way to etcd, and
    # whether etcd's leader is killed meanwhile.
    partitions: list[tuple[str, bool]]
    # The clock rates of r4, each in a partition of its own (1.0 is real time).
    rates: list[float]


# The short run: TTL 5 s, margin 1 s (the same 20% share of the TTL as the
# production settings'), renewed every second.
SHORT = Settings(
    ttl_ms=5000,
    margin_ms=1000,
    keep_alive_ms=1000,
    warm_s=3,
    gap_s=2,
    etcd_down_s=2,
    env={
        "POLYFLAKE_ETCD_TTL_MS": "5000",
        "POLYFLAKE_ETCD_KEEP_ALIVE_MS": "1000",
        "POLYFLAKE_ETCD_SAFETY_MARGIN_MS": "1000",
        "POLYFLAKE_ETCD_REQUEST_TIMEOUT_MS": "900",
    },
    partitions=[("blackhole", False), ("blackhole", True)],
    rates=[0.9, 0.75],
)
# The production settings: TTL 10 s, renewed every 3 s, margin 2 s.
FULL = Settings(
    ttl_ms=10_000,
    margin_ms=2000,
    keep_alive_ms=3000,
    warm_s=20,
    gap_s=10,
    etcd_down_s=5,
    env={},
    partitions=[
        ("blackhole", False),
        ("reset", False),
        ("latency", False),
        ("oneway", False),
        ("blackhole", True),
    ],
    rates=[0.99, 0.9, 0.75, 1.1],
)
# Added latency of the "latency" partition, each way.
LATENCY_MS = 2000


@dataclass
class Instance:
    name: str
    process: subprocess.Popen[bytes]
    started_ms: int
    log: Path
    ended_ms: int | None = None


@dataclass
class Member:
    """One member of the run's etcd cluster."""

    name: str
    client_port: int
    peer_port: int
    process: subprocess.Popen[bytes] | None = None


@dataclass
class Newcomer:
    """A process that may hold one node value only (e2e/newcomer.py)."""

    name: str
    process: subprocess.Popen[bytes]
    node: int
    out: Path


@dataclass
class Cut:
    """One partition of the run: r2 cut off from etcd by `fault`."""

    label: str
    fault: str
    node: int
    pid: int
    newcomer: Newcomer
    start: int
    healed: int = 0
    leader_killed: int | None = None
    # PID -> node value of every other holder just before the leader was killed.
    others: dict[int, int] = field(default_factory=dict)
    end: int = 0


@dataclass
class Rated:
    """r4 under libfaketime at `rate`, asked for IDs by the run itself (its
    IDs carry its own clock's time, which no other check could read)."""

    rate: float
    pid: int
    answers: list[dict[str, Any]] = field(default_factory=list)
    node: int = 0
    refused: int | None = None
    cut: int = 0
    healed: int = 0
    newcomer: Newcomer | None = None


@dataclass
class Run:
    base: Path
    settings: Settings
    cli: Path
    node_dir: Path
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    instances: list[Instance] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    members: list[Member] = field(default_factory=list)
    proxies: dict[str, Proxy] = field(default_factory=dict)
    newcomers: list[Newcomer] = field(default_factory=list)
    cuts: list[Cut] = field(default_factory=list)
    rated: list[Rated] = field(default_factory=list)
    ports: dict[str, int] = field(default_factory=dict)
    dsn: str = ""
    embedded_pid: int = 0

    def event(self, name: str, **details: Any) -> int:
        t = now_ms()
        self.events.append({"t": t, "event": name, **details})
        print(f"  {time.strftime('%H:%M:%S')} {name}", flush=True)
        return t

    def spawn(self, args: list[str], log: Path, **kw: Any) -> subprocess.Popen[bytes]:
        with open(log, "ab") as out:
            p = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, **kw)
        self.processes.append(p)
        return p

    # --- etcd ---------------------------------------------------------
    def start_etcd(self, members: list[Member] | None = None) -> None:
        """Starts `members` (every member by default) of the run's three-member
        cluster, on their data directories, and waits until the cluster answers."""
        if not self.members:
            self.members = [
                Member(f"e2e{i}", free_port(), free_port()) for i in range(3)
            ]
        initial = ",".join(
            f"{m.name}=http://127.0.0.1:{m.peer_port}" for m in self.members
        )
        for m in members or self.members:
            client = f"http://127.0.0.1:{m.client_port}"
            peer = f"http://127.0.0.1:{m.peer_port}"
            m.process = self.spawn(
                [
                    "etcd",
                    "--name",
                    m.name,
                    "--data-dir",
                    str(self.base / m.name),
                    "--listen-client-urls",
                    client,
                    "--advertise-client-urls",
                    client,
                    "--listen-peer-urls",
                    peer,
                    "--initial-advertise-peer-urls",
                    peer,
                    "--initial-cluster",
                    initial,
                    "--initial-cluster-token",
                    f"e2e-{self.members[0].client_port}",
                ],
                self.base / f"{m.name}.log",
            )
        wait_for(
            lambda: etcd_holders(self.etcd_ports()) is not None, 30, "etcd answers"
        )

    def etcd_ports(self) -> list[int]:
        """The client ports of the members running now."""
        return [
            m.client_port
            for m in self.members
            if m.process and m.process.poll() is None
        ]

    def etcd_endpoints(self) -> str:
        return ",".join(f"http://127.0.0.1:{m.client_port}" for m in self.members)

    def etcd_signal(self, sig: signal.Signals) -> None:
        for m in self.members:
            if m.process and m.process.poll() is None:
                m.process.send_signal(sig)

    def leader(self) -> Member | None:
        """The member that says it leads (its JSON gateway's status call)."""
        for m in self.members:
            status = etcd_call(m.client_port, "/v3/maintenance/status", {})
            if status and status.get("leader") == status.get("header", {}).get(
                "member_id"
            ):
                return m
        return None

    # --- PostgreSQL ---------------------------------------------------------
    def start_postgres(
        self, durable: bool = False, settings: dict[str, str] | None = None
    ) -> None:
        """A cluster of its own (initdb into the run's directory, a password,
        its own port on 127.0.0.1). The fault run needs no durability (fsync
        off); a benchmark asks for the defaults. `settings` go to the server
        as `-c` options."""
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not bins:
            sys.exit(
                "e2e: PostgreSQL's initdb not found (make deps installs postgresql)"
            )
        bindir = Path(bins[-1]).parent
        data = self.base / "pg"
        data.mkdir(mode=0o700)
        password = secrets.token_hex(16)
        pwfile = data / "pwfile"
        pwfile.write_text(password + "\n")
        kw: dict[str, Any] = {}
        if os.geteuid() == 0:
            # PostgreSQL refuses to run as root: an unprivileged account.
            account = "postgres"
            try:
                user = pwd.getpwnam(account)
            except KeyError:
                user = pwd.getpwnam("nobody")
            os.chmod(self.base, 0o711)
            for path in (data, pwfile):
                os.chown(path, user.pw_uid, user.pw_gid)
            kw = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
        subprocess.run(
            [
                str(bindir / "initdb"),
                "-D",
                str(data / "db"),
                "-U",
                "e2e",
                "-A",
                "scram-sha-256",
                "--pwfile",
                str(pwfile),
                "--no-sync",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            **kw,
        )
        port = free_port()
        self.spawn(
            [
                str(bindir / "postgres"),
                "-D",
                str(data / "db"),
                "-p",
                str(port),
                "-k",
                str(data),
                "-c",
                "listen_addresses=127.0.0.1",
                *(
                    []
                    if durable
                    else ["-c", "fsync=off", "-c", "synchronous_commit=off"]
                ),
                *(a for k, v in (settings or {}).items() for a in ("-c", f"{k}={v}")),
            ],
            self.base / "postgres.log",
            **kw,
        )
        self.dsn = f"postgresql://e2e:{password}@127.0.0.1:{port}/postgres"

        def connects() -> bool:
            try:
                psycopg.connect(self.dsn, connect_timeout=1).close()
                return True
            except psycopg.OperationalError:
                return False

        wait_for(connects, 30, "PostgreSQL accepts connections")

    def create_orders(self) -> None:
        with psycopg.connect(self.dsn, autocommit=True) as db:
            db.execute(
                "CREATE TABLE orders (id BIGINT PRIMARY KEY, created_at timestamptz NOT NULL,"
                " client text NOT NULL, replica text NOT NULL)"
            )

    # --- replicas -----------------------------------------------------------
    def replica_env(self, name: str | None = None) -> dict[str, str]:
        """The environment of a process on the run's etcd: replica `name`
        reaches every member through its own proxy, which the run can cut;
        a process without a name reaches the members directly."""
        env = dict(os.environ)
        for k in list(env):
            if k.startswith("POLYFLAKE_"):
                del env[k]
        env.update(self.settings.env)
        endpoints = self.etcd_endpoints()
        if name is not None:
            if name not in self.proxies:
                self.proxies[name] = Proxy([m.client_port for m in self.members])
            endpoints = ",".join(self.proxies[name].endpoints)
        env["POLYFLAKE_ETCD_ENDPOINTS"] = endpoints
        env["POLYFLAKE_ETCD_PREFIX"] = PREFIX
        return env

    def start_replica(self, name: str, rate: float | None = None) -> Instance:
        port = self.ports.setdefault(name, free_port())
        env = self.replica_env(name)
        args = [
            str(self.cli),
            "serve",
            "--layout",
            LAYOUT,
            "--listen",
            f"127.0.0.1:{port}",
        ]
        if name == "r3":
            # The replica that meets a stepped clock: the wall clock (the
            # default monotonic clock ignores steps) and the policy fail,
            # under libfaketime reading its offset from a file.
            args += ["--clock", "wall", "--on-clock-backwards", "fail"]
            (self.base / "r3.faketime").write_text("+0\n")
            env.update(
                LD_PRELOAD=faketime_library(),
                FAKETIME_TIMESTAMP_FILE=str(self.base / "r3.faketime"),
                FAKETIME_CACHE_DURATION="1",
                FAKETIME_DONT_FAKE_MONOTONIC="1",
            )
        if rate is not None:
            # A clock that runs at `rate` of real time from its start, both
            # the wall clock and the monotonic one the lease measures on.
            env.update(LD_PRELOAD=faketime_library(), FAKETIME=f"+0 x{rate}")
        n = sum(1 for i in self.instances if i.name == name)
        log = self.base / f"{name}.{n}.log"
        instance = Instance(name, self.spawn(args, log, env=env), now_ms(), log)
        self.instances.append(instance)
        return instance

    def start_newcomer(self, node: int) -> Newcomer:
        """A process straight to etcd that may hold `node` only."""
        name = f"newcomer{len(self.newcomers) + 1}"
        out = self.base / f"{name}.jsonl"
        process = self.spawn(
            [
                sys.executable,
                str(HERE / "newcomer.py"),
                "--dsn",
                self.dsn,
                "--out",
                str(out),
                "--name",
                name,
                "--node",
                str(node),
            ],
            self.base / f"{name}.log",
            env=self.replica_env(),
        )
        newcomer = Newcomer(name, process, node, out)
        self.newcomers.append(newcomer)
        return newcomer

    def url(self, name: str) -> str:
        return f"127.0.0.1:{self.ports[name]}"

    def live(self, name: str) -> Instance:
        return next(i for i in reversed(self.instances) if i.name == name)


def faketime_library() -> str:
    found = glob.glob("/usr/lib/*/faketime/libfaketime.so.1")
    if not found:
        sys.exit("e2e: libfaketime not found (make deps installs faketime)")
    return found[0]


def wait_for(condition: Any, seconds: float, what: str) -> float:
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > seconds:
            raise SystemExit(f"e2e: {what}: not within {seconds} s")
        time.sleep(0.02)
    return time.monotonic() - start


def http_status(address: str, path: str, timeout: float = 0.3) -> int:
    try:
        with urllib.request.urlopen(f"http://{address}{path}", timeout=timeout) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return int(e.code)
    except OSError:
        return 0


def http_text(address: str, path: str) -> str:
    with urllib.request.urlopen(f"http://{address}{path}", timeout=2) as r:
        return str(r.read().decode())


def metric(text: str, sample: str) -> int:
    for line in text.splitlines():
        if line.startswith(sample + " "):
            return int(float(line.rsplit(" ", 1)[1]))
    raise KeyError(sample)


def etcd_call(port: int, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """A call to one member's JSON gateway, or None if it does not answer."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode()
    )
    try:
        with urllib.request.urlopen(request, timeout=0.3) as r:
            return dict(json.loads(r.read()))
    except (OSError, ValueError):
        return None


def etcd_holders(ports: list[int]) -> dict[int, int] | None:
    """Node number -> PID of the process holding its worker key, read from
    etcd itself (the first member of `ports` that answers a linearizable
    read), or None if none does."""
    key = f"{PREFIX}/{LAYOUT}/workers/"
    end = key[:-1] + chr(ord(key[-1]) + 1)
    body = {
        "key": base64.b64encode(key.encode()).decode(),
        "range_end": base64.b64encode(end.encode()).decode(),
    }
    for port in ports:
        answer = etcd_call(port, "/v3/kv/range", body)
        if answer is None or "header" not in answer:
            continue
        holders = {}
        for kv in answer.get("kvs", []):
            n = int(base64.b64decode(kv["key"]).decode().rsplit("/", 1)[1])
            value = base64.b64decode(kv.get("value", "")).decode()
            fields = dict(p.split("=", 1) for p in value.split() if "=" in p)
            holders[n] = int(fields.get("pid", "-1"))
        return holders
    return None


class Watch(threading.Thread):
    """Samples etcd's holders every 100 ms and each replica's /readyz every
    50 ms, keeping what it saw with the time."""

    def __init__(self, run: Run) -> None:
        super().__init__(daemon=True)
        self.run_ = run
        self.samples: list[tuple[int, dict[int, int]]] = []
        self.ready: list[tuple[int, str, int]] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        tick = 0
        while not self.stopping.is_set():
            if tick % 2 == 0:
                before = now_ms()
                holders = etcd_holders(self.run_.etcd_ports())
                if holders is not None:
                    self.samples.append(((before + now_ms()) // 2, holders))
            for name in ("r1", "r2", "r3"):
                status = http_status(self.run_.url(name), "/readyz", timeout=0.1)
                self.ready.append((now_ms(), name, status))
            tick += 1
            time.sleep(0.05)

    def first(self, name: str, after: int, good: bool) -> int | None:
        for t, n, status in self.ready:
            if n == name and t >= after and (status == 200) == good:
                return t
        return None


def wait_ready(run: Run, names: list[str], seconds: float = 60) -> float:
    return wait_for(
        lambda: all(http_status(run.url(n), "/readyz") == 200 for n in names),
        seconds,
        f"{', '.join(names)} ready",
    )


def faults(run: Run, watch: Watch) -> dict[str, Any]:
    s = run.settings
    ttl = s.ttl_ms / 1000
    timings: dict[str, Any] = {}
    time.sleep(s.warm_s)

    r1 = run.live("r1")
    run.event("kill -9 r1")
    r1.process.kill()
    r1.process.wait()
    r1.ended_ms = now_ms()
    time.sleep(1)
    run.start_replica("r1")
    timings["r1 restarted after kill -9: ready in ms"] = round(
        wait_ready(run, ["r1"]) * 1000
    )
    time.sleep(s.gap_s)

    r2 = run.live("r2")
    run.event("SIGSTOP r2", seconds=ttl + 2)
    r2.process.send_signal(signal.SIGSTOP)
    time.sleep(ttl + 2)
    r2.process.send_signal(signal.SIGCONT)
    run.event("SIGCONT r2")
    timings["r2 paused past its TTL: ready again after SIGCONT in ms"] = round(
        wait_ready(run, ["r2"]) * 1000
    )
    time.sleep(s.gap_s)

    t_stop = run.event("SIGSTOP etcd (every member)", seconds=ttl + 2)
    run.etcd_signal(signal.SIGSTOP)
    time.sleep(ttl + 2)
    run.etcd_signal(signal.SIGCONT)
    t_cont = run.event("SIGCONT etcd")
    wait_ready(run, ["r1", "r2", "r3"])
    time.sleep(0.2)
    for name in ("r1", "r2", "r3"):
        down = watch.first(name, t_stop, good=False)
        up = watch.first(name, t_cont, good=True)
        timings[f"etcd paused: {name} 503 after (ms)"] = (
            None if down is None else down - t_stop
        )
        timings[f"etcd paused: {name} ready after SIGCONT (ms)"] = (
            None if up is None else up - t_cont
        )
    run.events[-1]["frozen_from"] = t_stop
    time.sleep(s.gap_s)

    run.event("etcd stopped (SIGTERM, every member)", seconds=s.etcd_down_s)
    run.etcd_signal(signal.SIGTERM)
    for m in run.members:
        assert m.process
        m.process.wait()
    time.sleep(s.etcd_down_s)
    run.start_etcd()
    run.event("etcd started on the same data directories")
    timings["etcd restarted: all ready in ms"] = round(
        wait_ready(run, ["r1", "r2", "r3"]) * 1000
    )
    time.sleep(s.gap_s)

    r1 = run.live("r1")
    pid = r1.process.pid
    held = [n for n, p in (etcd_holders(run.etcd_ports()) or {}).items() if p == pid]
    run.event("SIGTERM r1", node=held)
    r1.process.terminate()
    code = r1.process.wait(timeout=15)
    r1.ended_ms = now_ms()
    released = etcd_holders(run.etcd_ports()) or {}
    timings["SIGTERM r1: exit status"] = code
    timings["SIGTERM r1: its value in etcd right after exit"] = [
        released.get(n) for n in held
    ]
    assert held and all(released.get(n) != pid for n in held), (held, released)
    run.start_replica("r1")
    wait_ready(run, ["r1"])
    time.sleep(s.gap_s)

    t = run.event("r3's wall clock stepped back 3 s", seconds=2)
    (run.base / "r3.faketime").write_text("-3\n")
    time.sleep(2)
    (run.base / "r3.faketime").write_text("+0\n")
    run.event("r3's clock restored")
    wait_ready(run, ["r3"])
    text = http_text(run.url("r3"), "/metrics")
    timings["r3 clock step: CLOCK_MOVED_BACKWARDS refusals"] = metric(
        text, 'polyflake_clock_backwards_total{policy="fail",outcome="refused"}'
    )
    down = watch.first("r3", t, good=False)
    timings["r3 clock step: 503 after (ms)"] = None if down is None else down - t
    time.sleep(s.gap_s)

    for fault, kill_leader in s.partitions:
        timings.update(partition(run, watch, fault, kill_leader))
    for rate in s.rates:
        timings.update(clock_rate(run, watch, rate))
    return timings


def held_by(run: Run, pid: int, seconds: float = 20) -> int:
    """The one node value etcd shows `pid` holding (waits for it)."""
    found: list[int] = []

    def one() -> bool:
        found[:] = [
            n for n, p in (etcd_holders(run.etcd_ports()) or {}).items() if p == pid
        ]
        return len(found) == 1

    wait_for(one, seconds, f"etcd shows PID {pid} holding one value")
    return found[0]


def partition(run: Run, watch: Watch, fault: str, kill_leader: bool) -> dict[str, Any]:
    """r2 cut off from etcd by its proxy, etcd healthy for everyone else,
    for a TTL and 3 s more; a newcomer straight to etcd waits for r2's value
    meanwhile; with `kill_leader`, etcd's leader is killed -9 under load 1 s
    into the cut (and started again before healing). Then healed."""
    s = run.settings
    label = f"partition {len(run.cuts) + 1} ({fault}{', leader killed' if kill_leader else ''})"
    r2 = run.live("r2")
    pid = r2.process.pid
    node = held_by(run, pid)
    newcomer = run.start_newcomer(node)
    time.sleep(0.5)
    cut = Cut(label, fault, node, pid, newcomer, 0)
    run.cuts.append(cut)
    cut.start = run.event(f"{label}: r2 cut off from etcd", node=node)
    run.proxies["r2"].set(fault, LATENCY_MS if fault == "latency" else 0)
    killed = None
    if kill_leader:
        time.sleep(1)
        cut.others = {
            p: n for n, p in (etcd_holders(run.etcd_ports()) or {}).items() if p != pid
        }
        killed = run.leader()
        assert killed and killed.process, "etcd has no leader"
        cut.leader_killed = run.event(
            f"{label}: etcd's leader {killed.name} killed (-9)"
        )
        killed.process.kill()
        killed.process.wait()
    # Past the TTL, and with a leader killed past the longer life that etcd
    # gives every lease when a new leader takes over (its election timeout).
    time.sleep(s.ttl_ms / 1000 + (4 if kill_leader else 3))
    if killed:
        run.start_etcd([killed])
        run.event(f"{label}: {killed.name} started again")
    cut.healed = run.event(f"{label}: r2 healed")
    run.proxies["r2"].set("none")
    timings: dict[str, Any] = {}
    timings[f"{label}: r2 ready after healing (ms)"] = round(
        wait_ready(run, ["r2"]) * 1000
    )
    down = watch.first("r2", cut.start, good=False)
    timings[f"{label}: r2 503 after the cut (ms)"] = (
        None if down is None else down - cut.start
    )
    freed = next(
        (t for t, h in watch.samples if t >= cut.start and h.get(node) != pid), None
    )
    if freed is not None:
        timings[f"{label}: r2's value free in etcd after the cut (ms)"] = (
            freed - cut.start
        )
    else:
        timings[f"{label}: r2's value kept by etcd (renewals reached it)"] = True
    time.sleep(s.gap_s / 2)
    newcomer.process.terminate()
    newcomer.process.wait(timeout=30)
    cut.end = run.event(f"{label}: newcomer stopped")
    time.sleep(s.gap_s / 2)
    return timings


def ask(address: str, rated: Rated, stopping: threading.Event) -> None:
    """Asks r4 for 100 IDs every 10 ms, keeping each answer with the real
    times it was sent and received."""
    while not stopping.is_set():
        record: dict[str, Any] = {"sent": now_ms()}
        try:
            status, body = fetch(address, 100, timeout=1.0)
        except (OSError, ValueError):
            status, body = 0, {"code": "NO_ANSWER"}
        record.update(received=now_ms(), status=status)
        if status == 200:
            record["ids"] = body["ids"]
        else:
            record["code"] = body.get("code", "?")
            record["reason"] = body.get("reason")
        rated.answers.append(record)
        time.sleep(0.01)


def clock_rate(run: Run, watch: Watch, rate: float) -> dict[str, Any]:
    """r4, its clock at `rate` of real time (libfaketime), holds a value; a
    clock slower than the margin's share of the TTL allows is found by the
    lease's probe and refuses (`clock_gap`) before anything else happens.
    Then r4 is cut off from etcd while a newcomer waits for its value, and
    healed after TTL + 3 s, as r2 was."""
    s = run.settings
    label = f"clock at x{rate}"
    r4 = run.start_replica("r4", rate=rate)
    rated = Rated(rate, r4.process.pid)
    run.rated.append(rated)
    wait_ready(run, ["r4"])
    rated.node = held_by(run, rated.pid)
    run.event(f"{label}: r4 holds value {rated.node}")
    stopping = threading.Event()
    asking = threading.Thread(
        target=ask, args=(run.url("r4"), rated, stopping), daemon=True
    )
    asking.start()
    timings: dict[str, Any] = {}
    slow_beyond = 1 - rate > s.margin_ms / s.ttl_ms
    if slow_beyond:
        # The probe needs enough of etcd's clock to prove it: about 10 s at
        # 25% slow here. Not seen within a minute, the partition goes ahead
        # and the checks say what came of it.
        start = now_ms()

        def refused() -> bool:
            return any(a.get("reason") == "clock_gap" for a in rated.answers)

        try:
            wait_for(refused, 60, f"r4 at x{rate} refuses clock_gap")
            rated.refused = next(
                a["received"] for a in rated.answers if a.get("reason") == "clock_gap"
            )
            timings[f"{label}: r4 refused clock_gap after (ms)"] = rated.refused - start
            run.event(f"{label}: r4 found its clock too slow and refuses")
        except SystemExit as e:
            run.event(str(e))
    else:
        time.sleep(s.warm_s + 5)
    rated.newcomer = run.start_newcomer(rated.node)
    time.sleep(0.5)
    rated.cut = run.event(f"{label}: r4 cut off from etcd")
    run.proxies["r4"].set("blackhole")
    time.sleep(s.ttl_ms / 1000 + 3)
    rated.healed = run.event(f"{label}: r4 healed")
    run.proxies["r4"].set("none")
    if rated.refused is None:
        ready = wait_ready(run, ["r4"])
        timings[f"{label}: r4 ready after healing (ms)"] = round(ready * 1000)
    time.sleep(1)
    stopping.set()
    asking.join()
    rated.newcomer.process.terminate()
    rated.newcomer.process.wait(timeout=30)
    r4.process.terminate()
    r4.process.wait(timeout=15)
    r4.ended_ms = now_ms()
    run.event(f"{label}: r4 and the newcomer stopped")
    time.sleep(1)
    return timings


def load(path: Path) -> list[dict[str, Any]]:
    records = []
    for line in path.read_text().splitlines():
        if line.strip():
            records.append(json.loads(line))
    return records


@dataclass
class Verdict:
    """What the checks found: a failure for each assertion that does not
    hold (none when all do), and the figures for the report."""

    failures: list[str] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)

    def fail(self, why: str) -> None:
        self.failures.append(why)


def id_time(id: int) -> int:
    """The Unix millisecond an ID of the run's layout was issued in."""
    return polyflake.decode(id, LAYOUT).timestamp_ms


def node_value(parts: polyflake.Parts) -> int:
    """The node value an ID was issued under: its node fields read as one
    number, most significant first (as etcd's worker keys number them)."""
    node = 0
    for name, bits in NODE_FIELDS:
        node = (node << bits) | getattr(parts, name)
    return node


def check_unique(
    ok: list[dict[str, Any]], records: list[dict[str, Any]], v: Verdict
) -> None:
    """No ID twice, no primary-key violation; refusals counted by replica and code."""
    ids = [int(i) for r in ok for i in r["ids"]]
    v.figures["IDs received"] = len(ids)
    v.figures["duplicate IDs"] = len(ids) - len(set(ids))
    if v.figures["duplicate IDs"]:
        v.fail(f"{v.figures['duplicate IDs']} duplicate IDs")
    violations = [r for r in ok if r.get("db_error")]
    v.figures["primary-key violations"] = len(violations)
    if violations:
        v.fail(
            f"{len(violations)} batches hit a primary-key violation: {violations[0]['db_error']}"
        )
    refusals: dict[str, int] = {}
    for r in records:
        if r.get("status") != 200:
            key = f"{r['replica']} {r.get('status')} {r.get('code')}"
            refusals[key] = refusals.get(key, 0) + 1
    v.figures["refused or unanswered requests"] = refusals


def check_holders(run: Run, watch: Watch, ok: list[dict[str, Any]], v: Verdict) -> None:
    """Every ID was issued under a node value that etcd's own record showed
    its issuer holding at the ID's time."""
    pids = {i.process.pid: i.name for i in run.instances}
    pids[run.embedded_pid] = "embedded"
    pids.update((n.process.pid, n.name) for n in run.newcomers)
    times = [t for t, _ in watch.samples]
    unheld = 0
    example = ""
    for r in ok:
        source = r["replica"]
        checked: set[tuple[int, int]] = set()
        for text in r["ids"]:
            id = int(text)
            parts = polyflake.decode(id, LAYOUT)
            t, n = parts.timestamp_ms, node_value(parts)
            if (t, n) in checked:
                continue
            checked.add((t, n))
            k = bisect.bisect_right(times, t)
            near = [watch.samples[j][1] for j in (k - 1, k) if 0 <= j < len(times)]
            if not any(pids.get(h.get(n, -1)) == source for h in near):
                unheld += 1
                example = (
                    example
                    or f"{source} issued {id} (node {n}, {t} ms) while etcd showed {near}"
                )
    v.figures["IDs under a node value etcd did not show their issuer holding"] = unheld
    if unheld:
        v.fail(f"{unheld} (time, node) pairs not held by their issuer: {example}")


def check_increasing(ok: list[dict[str, Any]], v: Verdict) -> None:
    """Per replica, strictly increasing: an answer received before another
    was asked for holds only smaller IDs."""
    decreasing = 0
    for name in {r["replica"] for r in ok}:
        mine = [r for r in ok if r["replica"] == name]
        by_received = sorted(mine, key=lambda r: r["received"])
        highest, j = -1, 0
        for r in sorted(mine, key=lambda r: r["sent"]):
            while j < len(by_received) and by_received[j]["received"] < r["sent"]:
                highest = max(highest, int(by_received[j]["ids"][-1]))
                j += 1
            batch = [int(i) for i in r["ids"]]
            if batch[0] <= highest or any(a >= b for a, b in itertools.pairwise(batch)):
                decreasing += 1
    v.figures["answers not above their replica's earlier answers"] = decreasing
    if decreasing:
        v.fail(
            f"{decreasing} answers not strictly above earlier answers of their replica"
        )


def check_faults_seen(
    run: Run,
    ok: list[dict[str, Any]],
    records: list[dict[str, Any]],
    timings: dict[str, Any],
    v: Verdict,
) -> None:
    """Each fault was seen: the stepped clock refused on r3 alone, the
    others answered meanwhile, and every timing was observed."""
    step = next(e for e in run.events if e["event"].startswith("r3's wall clock"))
    restored = next(e for e in run.events if e["event"] == "r3's clock restored")
    # A newcomer may refuse so too, while its clock is behind the mark of
    # the value it took (a holder that stopped on a slow clock leaves it a
    # lease ahead): counted, not a fault.
    newcomers = {n.name for n in run.newcomers}
    clock_refusals = [r for r in records if r.get("code") == "CLOCK_MOVED_BACKWARDS"]
    waited = [r for r in clock_refusals if r["replica"] in newcomers]
    v.figures["newcomers' refusals while behind their value's mark"] = len(waited)
    stepped = {r["replica"] for r in clock_refusals if r["replica"] not in newcomers}
    if stepped != {"r3"}:
        v.fail(f"the clock step was refused by {sorted(stepped)}")
    if timings["r3 clock step: CLOCK_MOVED_BACKWARDS refusals"] < 1:
        v.fail("r3's metrics counted no clock-backwards refusal")
    others = {
        r["replica"]
        for r in ok
        if step["t"] <= r["sent"] and r["received"] <= restored["t"]
    }
    if not {"r1", "r2"} <= others:
        v.fail(f"only {others} answered while r3's clock was stepped")
    missing = [k for k, t in timings.items() if t is None]
    if missing:
        v.fail(f"not observed: {missing}")


def check_frozen(run: Run, ok: list[dict[str, Any]], v: Verdict) -> None:
    """While etcd was frozen past the TTL, nobody issued."""
    frozen = next(e for e in run.events if e["event"] == "SIGCONT etcd")
    lapse_from = frozen["frozen_from"] + run.settings.ttl_ms
    during: dict[str, list[int]] = {}
    for r in ok:
        for text in r["ids"]:
            t = id_time(int(text))
            if lapse_from <= t < frozen["t"]:
                during.setdefault(r["replica"], []).append(t - frozen["frozen_from"])
    v.figures["IDs issued while every lease had lapsed (etcd frozen)"] = sum(
        map(len, during.values())
    )
    if during:
        v.fail(
            "IDs issued while etcd was frozen past the TTL: "
            + ", ".join(
                f"{k} {len(t)} at +{min(t)}..+{max(t)} ms" for k, t in during.items()
            )
        )


def check_partitions(
    run: Run, watch: Watch, ok: list[dict[str, Any]], v: Verdict
) -> None:
    """Each partition: r2 issued nothing from its deadline (TTL minus margin
    after the cut at the latest) until healed; the newcomer got r2's value
    only once etcd could have expired it (always, when etcd heard nothing
    from r2), and its IDs lie after and above r2's under that value; r2
    answered again after healing; with the leader killed, every other holder
    kept its value."""
    s = run.settings
    # IDs' instants come from each issuer's clock: a little slack for the
    # clocks' anchoring and for a 100 ms sample of etcd.
    slack = 400
    for c in run.cuts:
        r2 = [
            (id_time(int(i)), int(i))
            for r in ok
            if r["replica"] == "r2"
            for i in r["ids"]
        ]
        deadline = c.start + s.ttl_ms - s.margin_ms
        late = [t - c.start for t, _ in r2 if deadline < t < c.healed]
        v.figures[f"{c.label}: r2's last ID after the cut (ms)"] = max(
            (t - c.start for t, _ in r2 if c.start <= t < c.healed), default=None
        )
        if late:
            v.fail(
                f"{c.label}: r2 issued {len(late)} IDs past its deadline, up to +{max(late)} ms"
            )
        if not any(r["replica"] == "r2" and r["sent"] >= c.healed for r in ok):
            v.fail(f"{c.label}: r2 never answered after healing")
        lines = load(c.newcomer.out)
        claimed = lines[0].get("claimed") if lines else None
        mine = [
            (id_time(int(i)), int(i))
            for r in ok
            if r["replica"] == c.newcomer.name
            for i in r["ids"]
        ]
        expires = c.fault in ("blackhole", "reset")
        if claimed is None:
            v.figures[f"{c.label}: newcomer"] = (
                f"refused r2's value {lines[0]['refusals'] if lines else '?'}"
            )
            if expires:
                v.fail(
                    f"{c.label}: the newcomer never got r2's value, though etcd heard nothing from r2"
                )
            continue
        v.figures[f"{c.label}: newcomer got r2's value after the cut (ms)"] = (
            claimed - c.start
        )
        if claimed + s.keep_alive_ms + slack < c.start + s.ttl_ms:
            v.fail(
                f"{c.label}: the newcomer got r2's value {claimed - c.start} ms after the cut, before etcd could expire it"
            )
        if not mine:
            v.fail(f"{c.label}: the newcomer got r2's value but issued nothing")
            continue
        under = [
            (t, i)
            for t, i in r2
            if t < c.healed and node_value(polyflake.decode(i, LAYOUT)) == c.node
        ]
        if under and (
            max(under)[0] >= min(mine)[0]
            or max(i for _, i in under) >= min(i for _, i in mine)
        ):
            v.fail(
                f"{c.label}: the newcomer's first ID is not after and above r2's last under value {c.node}"
            )
        if c.leader_killed is not None:
            before = c.others
            after = {
                p: n
                for p, n in before.items()
                for t, h in watch.samples
                if c.healed <= t <= c.end and h.get(n) == p
            }
            lost = {p: n for p, n in before.items() if p not in after}
            v.figures[
                f"{c.label}: holders that kept their value through the election"
            ] = f"{len(after)} of {len(before)}"
            if lost:
                v.fail(f"{c.label}: holders lost their values in the election: {lost}")


def check_rates(run: Run, ok: list[dict[str, Any]], v: Verdict) -> None:
    """r4 at each clock rate, on the real clock of this run: within the bound
    (slow by less than the margin's share of the TTL, or fast) it answers
    nothing it was asked for after its deadline, TTL - margin of its own
    clock after the cut, and answers again once healed; beyond the bound it
    found its clock too slow and issued nothing from then on. Either way
    every answer with IDs came back before the newcomer had r4's value, and
    the newcomer's IDs lie above r4's; no ID twice with anyone."""
    s = run.settings
    everyone = {int(i) for r in ok for i in r["ids"]}
    for rated in run.rated:
        label = f"clock at x{rated.rate}"
        answered = [a for a in rated.answers if a["status"] == 200]
        ids = [int(i) for a in answered for i in a["ids"]]
        twice = len(ids) - len(set(ids)) + len(everyone & set(ids))
        v.figures[f"{label}: r4's IDs, issued twice"] = [len(ids), twice]
        if twice or not ids:
            v.fail(f"{label}: r4 issued {len(ids)} IDs, {twice} of them twice")
        if 1 - rated.rate > s.margin_ms / s.ttl_ms and rated.refused is None:
            v.fail(f"{label}: r4 never found its clock too slow")
        if rated.refused is not None:
            late = [a for a in answered if a["sent"] > rated.refused]
            if late:
                v.fail(
                    f"{label}: r4 answered {len(late)} requests after it refused clock_gap"
                )
        else:
            # Its last renewal before the cut was sent by the cut at the
            # latest; its deadline is TTL - margin later on its own clock.
            deadline = rated.cut + (s.ttl_ms - s.margin_ms) / rated.rate
            late = [a for a in answered if deadline < a["sent"] < rated.healed]
            last = max(
                (
                    a["received"]
                    for a in answered
                    if rated.cut <= a["sent"] < rated.healed
                ),
                default=None,
            )
            v.figures[
                f"{label}: r4's last answer after the cut (ms); its deadline (ms)"
            ] = [
                None if last is None else last - rated.cut,
                round(deadline - rated.cut),
            ]
            if late:
                v.fail(
                    f"{label}: r4 answered {len(late)} requests sent after its deadline"
                )
            if not any(a["sent"] >= rated.healed for a in answered):
                v.fail(f"{label}: r4 never answered after healing")
        assert rated.newcomer
        lines = load(rated.newcomer.out)
        claimed = lines[0].get("claimed") if lines else None
        if claimed is None:
            v.fail(f"{label}: the newcomer never got r4's value")
            continue
        v.figures[f"{label}: newcomer got r4's value after the cut (ms)"] = (
            claimed - rated.cut
        )
        before = [a for a in answered if a["sent"] < rated.healed]
        overlapping = [a for a in before if a["received"] >= claimed]
        if overlapping:
            v.fail(
                f"{label}: r4 answered {len(overlapping)} requests after the newcomer had its value,"
                f" the last {overlapping[-1]['received'] - claimed} ms after"
            )
        mine = [
            int(i) for r in ok if r["replica"] == rated.newcomer.name for i in r["ids"]
        ]
        theirs = [int(i) for a in before for i in a["ids"]]
        if mine and theirs and min(mine) <= max(theirs):
            v.fail(f"{label}: the newcomer's IDs do not all lie above r4's")


def check_database(run: Run, ok: list[dict[str, Any]], v: Verdict) -> None:
    """Every ID is a row; time ranges on the key alone agree with the IDs'
    times and with created_at; keyset pagination visits every row once."""
    ids = [int(i) for r in ok for i in r["ids"]]
    layout = polyflake.Layout(LAYOUT)
    # SQL cannot call polyflake: the time field's place, from the layout.
    time_shift = 64 - layout.unused_bits - layout.time_bits
    epoch = layout.epoch_ms
    with psycopg.connect(run.dsn) as db:
        rows = db.execute("SELECT count(*) FROM orders").fetchone()[0]
        inserted = sum(r.get("inserted", 0) for r in ok)
        v.figures["rows"] = rows
        if rows != inserted or rows != len(ids):
            v.fail(f"{rows} rows, {inserted} inserted, {len(ids)} IDs received")
        t_first = min(map(id_time, ids))
        t_last = max(map(id_time, ids))
        t0 = t_first + (t_last - t_first) // 4
        t1 = t_first + (t_last - t_first) * 3 // 4
        lo, hi = polyflake.min_id(LAYOUT, t0), polyflake.max_id(LAYOUT, t1)
        by_key = {
            x
            for (x,) in db.execute(
                "SELECT id FROM orders WHERE id BETWEEN %s AND %s", (lo, hi)
            )
        }
        by_time = {
            x
            for (x,) in db.execute(
                "SELECT id FROM orders WHERE (id >> %s) + %s BETWEEN %s AND %s",
                (time_shift, epoch, t0, t1),
            )
        }
        v.figures["rows in the middle half, by key range"] = len(by_key)
        if by_key != by_time or not by_key:
            v.fail(
                f"the key range holds {len(by_key)} rows, the IDs' times {len(by_time)}"
            )
        tolerance_ms = 2000
        lag = db.execute(
            "SELECT min(extract(epoch from created_at) * 1000 - ((id >> %s) + %s)),"
            " max(extract(epoch from created_at) * 1000 - ((id >> %s) + %s)) FROM orders",
            (time_shift, epoch, time_shift, epoch),
        ).fetchone()
        v.figures["created_at minus the ID's time, ms (min, max)"] = [
            round(float(x)) for x in lag
        ]
        if not (-50 <= float(lag[0]) and float(lag[1]) <= tolerance_ms):
            v.fail(
                f"created_at lies {lag} ms from the IDs' times, beyond the tolerance"
            )
        between = (
            "SELECT id FROM orders WHERE created_at BETWEEN to_timestamp(%s / 1000.0)"
            " AND to_timestamp(%s / 1000.0)"
        )
        inner = {x for (x,) in db.execute(between, (t0 + tolerance_ms, t1))}
        outer = {x for (x,) in db.execute(between, (t0 - 50, t1 + tolerance_ms))}
        if not (inner <= by_key <= outer):
            v.fail("the key range disagrees with created_at beyond the tolerance")
        seen, last = 0, -(2**63)
        while True:
            page = [
                x
                for (x,) in db.execute(
                    "SELECT id FROM orders WHERE id > %s ORDER BY id LIMIT 10000",
                    (last,),
                )
            ]
            if not page:
                break
            if page[0] <= last or any(a >= b for a, b in itertools.pairwise(page)):
                v.fail("keyset pagination went backwards")
                break
            seen += len(page)
            last = page[-1]
        v.figures["keyset pagination: rows visited"] = seen
        if seen != rows:
            v.fail(f"keyset pagination visited {seen} of {rows} rows")


def check(
    run: Run, watch: Watch, records: list[dict[str, Any]], timings: dict[str, Any]
) -> tuple[list[str], dict[str, Any]]:
    """Every assertion of the run: a list of failures (empty when all hold)
    and the figures for the report."""
    v = Verdict()
    ok = [r for r in records if r.get("status") == 200]
    check_unique(ok, records, v)
    check_holders(run, watch, ok, v)
    check_increasing(ok, v)
    check_faults_seen(run, ok, records, timings, v)
    check_frozen(run, ok, v)
    check_partitions(run, watch, ok, v)
    check_rates(run, ok, v)
    check_database(run, ok, v)
    return v.failures, v.figures


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


def report(
    run: Run,
    timings: dict[str, Any],
    figures: dict[str, Any],
    failures: list[str],
    seconds: float,
    path: str | None,
) -> None:
    print("\n# e2e report")
    print(f"layout {LAYOUT}, TTL {run.settings.ttl_ms} ms, {seconds:.0f} s in all\n")
    print("## faults, in order")
    t0 = run.events[0]["t"]
    for e in run.events:
        print(f"  +{(e['t'] - t0) / 1000:6.1f} s  {e['event']}")
    print("\n## timings")
    for k, v in timings.items():
        print(f"  {k}: {v}")
    print("\n## figures")
    for k, v in figures.items():
        print(f"  {k}: {v}")
    print("\n## verdict")
    print(
        "  every check held"
        if not failures
        else "\n".join(f"  FAILED: {f}" for f in failures)
    )
    if path:
        Path(path).write_text(
            json.dumps(
                {
                    "timings": timings,
                    "figures": figures,
                    "failures": failures,
                    "seconds": round(seconds),
                },
                indent=1,
            )
        )


def stop_all(run: Run) -> None:
    for proxy in run.proxies.values():
        proxy.close()
    for p in run.processes:
        if p.poll() is None:
            try:
                p.send_signal(signal.SIGCONT)
                p.terminate()
                p.wait(timeout=10)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                p.kill()
                p.wait()


if __name__ == "__main__":
    sys.exit(main())
