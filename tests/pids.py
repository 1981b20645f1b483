"""Processes the launchers started, ended by their PIDs (tests/ports.py's
neighbour: standard library only, imported by every launcher)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path


def alive(pid: int) -> bool:
    """Running or stopped, not gone and not a zombie awaiting its reaper."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def end(pid: int, seconds: float = 10) -> None:
    """Resumes `pid` (if paused), kills it, and waits until it is gone: reaped
    if it is this process's child, else until its reaper has it."""
    for sig in (signal.SIGCONT, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
    try:
        os.waitpid(pid, 0)
        return
    except ChildProcessError:
        pass  # started by another process (a `start` call)
    deadline = time.monotonic() + seconds
    while alive(pid):
        if time.monotonic() > deadline:
            raise RuntimeError(f"process {pid} did not end within {seconds:.0f} s")
        time.sleep(0.02)
