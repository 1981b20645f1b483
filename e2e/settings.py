"""The end-to-end run's settings: the layout and etcd prefix every process
uses, the short run's and the full run's timings and faults."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import polyflake

HERE = Path(__file__).resolve().parent


LAYOUT = "twitter"


# Its node fields with their widths, most significant first.
NODE_FIELDS = polyflake.Layout(LAYOUT).nodes


PREFIX = "/e2e"


def now_ms() -> int:
    return time.time_ns() // 1_000_000


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
