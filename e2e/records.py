"""What the run keeps of the processes it started and the faults it made:
plain records, written by processes.py and faults.py, read by the checks."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Instance:
    name: str
    process: subprocess.Popen[bytes]
    started_ms: int
    log: Path
    ended_ms: int | None = None


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
