"""A PostgreSQL 15 cluster of a test's own: every suite that needs a real
PostgreSQL (the extension's SQL suite, the framework integrations in Python,
Node and Kotlin) starts one with this file, so that there is one way to do it.

Debian's PostgreSQL 15 (`make deps` installs it): an initdb into a fresh
directory under /tmp, trust authentication for the user `polyflake`, a port
of 127.0.0.1 by tests/ports.py's rule (another one if it is lost), started
here and stopped by its PID (a password and SCRAM instead of trust when one
is given, as the end-to-end run asks). PostgreSQL refuses to run as root: as
root the cluster runs as `postgres` (Debian's package makes that account),
else `nobody`. Only the standard library: a suite in any
language runs it as a script::

    python3 tests/postgres_cluster.py start      # prints {"url": …, "dir": …}; the PID is in dir/pid
    python3 tests/postgres_cluster.py stop DIR   # stops it by that PID, removes DIR
"""

from __future__ import annotations

import glob
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ports import PortLost, free_port, retrying


def bindir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/15/bin/initdb"))
    if not found:
        raise RuntimeError("PostgreSQL 15's initdb is missing (make deps installs it)")
    return Path(found[0]).parent


def account() -> dict:
    """subprocess arguments that run as the cluster's account (when root)."""
    if os.geteuid() != 0:
        return {}
    try:
        user = pwd.getpwnam("postgres")
    except KeyError:
        user = pwd.getpwnam("nobody")
    return {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}


def private_dir(prefix: str, base: Path | None = None) -> Path:
    """A directory (under /tmp by default) that the cluster's account owns."""
    if base is None:
        path = Path(tempfile.mkdtemp(prefix=prefix))
    else:
        path = base
        path.mkdir(parents=True)
    kw = account()
    if kw:
        os.chmod(path, 0o711)
        os.chown(path, kw["user"], kw["group"])
    return path


class Cluster:
    """One cluster: `start(settings, env)`, `stop(mode)`, `log()`, `close()`."""

    def __init__(
        self,
        base: Path | None = None,
        user: str = "polyflake",
        password: str | None = None,
    ) -> None:
        self.base = private_dir("polyflake-pg-", base)
        self.data = self.base / "db"
        self.port = free_port()
        self.user = user
        self.password = password
        self.server: subprocess.Popen | None = None
        self.logs: list[str] = []
        auth = ["-A", "trust"]
        if password is not None:
            pwfile = self.base / "pwfile"
            pwfile.write_text(password + "\n")
            pwfile.chmod(0o600)  # read by initdb, as the cluster's account
            if account():
                os.chown(pwfile, account()["user"], account()["group"])
            auth = ["-A", "scram-sha-256", "--pwfile", str(pwfile)]
        subprocess.run(
            [
                str(bindir() / "initdb"),
                "-D",
                str(self.data),
                "-U",
                user,
                *auth,
                "--no-sync",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            cwd=self.base,
            **account(),
        )

    @property
    def url(self) -> str:
        secret = "" if self.password is None else f":{self.password}"
        return f"postgresql://{self.user}{secret}@127.0.0.1:{self.port}/postgres"

    def start(
        self, settings: dict[str, str] | None = None, env: dict[str, str] | None = None
    ) -> None:
        """Starts the server with `settings` (`-c key=value`) and waits until it
        accepts connections. Its environment is this one's without POLYFLAKE_*
        (an extension must see only what the test gives it), plus `env`."""
        retrying(lambda: self._start(settings, env))

    def _start(
        self, settings: dict[str, str] | None, env: dict[str, str] | None
    ) -> None:
        options = {"listen_addresses": "127.0.0.1", "fsync": "off"}
        options.update(settings or {})
        args = [str(bindir() / "postgres"), "-D", str(self.data)]
        args += ["-p", str(self.port), "-k", str(self.base)]
        for key, value in options.items():
            args += ["-c", f"{key}={value}"]
        environ = {
            k: v for k, v in os.environ.items() if not k.startswith("POLYFLAKE_")
        }
        environ.update(env or {})
        log_path = self.base / f"postgres-{len(self.logs)}.log"
        self.logs.append(str(log_path))
        with open(
            log_path, "wb"
        ) as log:  # the server keeps its own copy of the descriptor
            self.server = subprocess.Popen(
                args,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.base,
                env=environ,
                start_new_session=True,
                **account(),
            )
        (self.base / "pid").write_text(str(self.server.pid))
        deadline = time.monotonic() + 30
        while not self.ready():
            if self.server.poll() is not None:
                text = log_path.read_text(errors="replace")
                if "could not bind" in text:
                    # Another launcher's server took the port first: another one.
                    self.server = None
                    self.port = free_port()
                    raise PortLost(f"port {self.port} was taken")
                raise RuntimeError("PostgreSQL ended at start:\n" + text[-4000:])
            if time.monotonic() > deadline:
                raise RuntimeError(
                    "PostgreSQL did not start within 30 s:\n" + self.log()[-4000:]
                )
            time.sleep(0.1)

    def ready(self) -> bool:
        probe = [
            str(bindir() / "pg_isready"),
            "-q",
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
        ]
        return subprocess.run(probe + ["-U", self.user], check=False).returncode == 0

    def stop(self, mode: str = "fast") -> None:
        """fast: SIGINT; immediate: SIGQUIT (no checkpoint, as after a crash)."""
        assert self.server is not None
        sig = {"fast": signal.SIGINT, "immediate": signal.SIGQUIT}[mode]
        self.server.send_signal(sig)
        self.server.wait(timeout=60)
        self.server = None

    def log(self) -> str:
        return "".join(Path(p).read_text(errors="replace") for p in self.logs)

    def close(self) -> str:
        """Stops the server if it runs and removes its directory; returns its log."""
        if self.server is not None:
            self.stop()
        text = self.log()
        shutil.rmtree(self.base, ignore_errors=True)
        return text


def _stop_by_pid(base: Path) -> None:
    pid = int((base / "pid").read_text())
    try:
        os.kill(pid, signal.SIGINT)
    except ProcessLookupError:
        pass
    else:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            raise SystemExit(f"PostgreSQL (pid {pid}) did not stop within 60 s")
    shutil.rmtree(base, ignore_errors=True)


def main(argv: list[str]) -> None:
    if argv == ["start"]:
        cluster = Cluster()
        cluster.start()
        # The server outlives this script, in a session of its own; `stop`
        # ends it by the PID written beside it.
        cluster.server = None
        print(json.dumps({"url": cluster.url, "dir": str(cluster.base)}))
    elif len(argv) == 2 and argv[0] == "stop":
        _stop_by_pid(Path(argv[1]))
    else:
        raise SystemExit("usage: postgres_cluster.py start | stop DIR")


if __name__ == "__main__":
    main(sys.argv[1:])
