"""Starting and stopping the run's processes: the three-member etcd and the
PostgreSQL cluster (from the suites' shared launchers in tests/), the
replicas (each behind a proxy of its own, e2e/proxy.py), the newcomers; every
one stopped by its PID."""

from __future__ import annotations

import glob
import os
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from probes import etcd_holders, wait_for
from proxy import Proxy
from records import Cut, Instance, Newcomer, Rated
from settings import HERE, LAYOUT, PREFIX, Settings, now_ms

sys.path.insert(0, str(HERE.parent / "tests"))
from etcd_cluster import Cluster as EtcdCluster
from etcd_cluster import Member
from ports import free_port
from postgres_cluster import Cluster as PostgresCluster


@dataclass
class Run:
    base: Path
    settings: Settings
    cli: Path
    node_dir: Path
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    instances: list[Instance] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    etcd: EtcdCluster | None = None
    postgres: PostgresCluster | None = None
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

    # --- etcd (tests/etcd_cluster.py, the suites' one launcher) ------------
    def start_etcd(self, members: list[Member] | None = None) -> None:
        """Starts the run's three-member cluster the first time, then
        `members` (every member by default) again on their data directories,
        and waits until the cluster answers."""
        if self.etcd is None:
            self.etcd = EtcdCluster(3, self.base / "etcd", name="e2e")
        else:
            self.etcd.start(members)
        wait_for(
            lambda: etcd_holders(self.etcd_ports()) is not None, 30, "etcd answers"
        )

    @property
    def members(self) -> list[Member]:
        return self.etcd.members if self.etcd else []

    def etcd_ports(self) -> list[int]:
        """The client ports of the members running now."""
        return [m.client_port for m in self.members if m.running()]

    def etcd_endpoints(self) -> str:
        return self.etcd.endpoints if self.etcd else ""

    def etcd_signal(self, sig: signal.Signals) -> None:
        if self.etcd:
            self.etcd.signal(sig)

    def leader(self) -> Member | None:
        return self.etcd.leader() if self.etcd else None

    # --- PostgreSQL (tests/postgres_cluster.py) ------------------------------
    def start_postgres(
        self, durable: bool = False, settings: dict[str, str] | None = None
    ) -> None:
        """A cluster of its own (in the run's directory, a password, its own
        port on 127.0.0.1). The fault run needs no durability (fsync off); a
        benchmark asks for the defaults. `settings` go to the server as `-c`
        options."""
        if os.geteuid() == 0:
            os.chmod(self.base, 0o711)  # the cluster's account reaches its directory
        self.postgres = PostgresCluster(
            self.base / "pg", user="e2e", password=secrets.token_hex(16)
        )
        options = {"fsync": "on"} if durable else {"synchronous_commit": "off"}
        self.postgres.start({**options, **(settings or {})})
        self.dsn = self.postgres.url

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


def stop_all(run: Run) -> None:
    for proxy in run.proxies.values():
        proxy.close()
    if run.etcd:
        run.etcd.stop()
    if run.postgres and run.postgres.server is not None:
        run.postgres.stop()
    for p in run.processes:
        if p.poll() is None:
            try:
                p.send_signal(signal.SIGCONT)
                p.terminate()
                p.wait(timeout=10)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                p.kill()
                p.wait()
