"""The run's observer: etcd's holders and each replica's readiness, sampled
with the time while the faults run."""

from __future__ import annotations

import threading
import time

from probes import etcd_holders, http_status, wait_for
from processes import Run
from settings import now_ms


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
