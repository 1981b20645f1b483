"""The one free-port rule of every suite, in every language (Rust's
tests/ports.rs, Node's and Kotlin's call the launchers that use this file).

A server that can be told port 0 is told port 0 and says which port it took
(`polyflake serve` prints its address): there is nothing to race. A server
that must be given a port (etcd, PostgreSQL) gets one from `free_port`: a
random port below Linux's ephemeral range (32768 and up), so that no process's
outgoing connection or port-0 socket can take it between the choice and the
bind, checked bindable now. Two launchers may still choose the same port at
once; the loser's server fails to bind, and `retrying` starts it again on
other ports. Only the standard library.
"""

from __future__ import annotations

import random
import socket
from collections.abc import Callable
from typing import TypeVar

LOW, HIGH = 20_000, 32_768
T = TypeVar("T")


def free_port(taken: set[int] | None = None) -> int:
    """A port of 127.0.0.1 below the ephemeral range that binds now and is not
    in `taken` (which it joins)."""
    chooser = random.SystemRandom()
    while True:
        port = chooser.randrange(LOW, HIGH)
        if taken is not None and port in taken:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        if taken is not None:
            taken.add(port)
        return port


class PortLost(RuntimeError):
    """A server did not come up on the ports chosen for it (another took one
    first, or it failed otherwise): `retrying` tries again on other ports."""


def retrying(start: Callable[[], T], tries: int = 3) -> T:
    """`start()`, again (it chooses new ports) while it raises PortLost."""
    for attempt in range(tries):
        try:
            return start()
        except PortLost:
            if attempt == tries - 1:
                raise
    raise AssertionError("unreachable")
