"""Checked by `mypy --strict` against the installed stubs (not run by pytest)."""

from __future__ import annotations

from datetime import datetime

import polyflake

layout: polyflake.Layout = polyflake.Layout.custom(
    1_700_000_000_000, 41, {"region": 4, "worker": 6}, 12
)
generator = polyflake.Generator(layout, region=1, worker=2, on_clock_backwards="logical")
ids: list[int] = generator.next_ids(10)
first: int = generator.next_id()
parts = polyflake.decode(first, layout)
region: int = parts.region
when = parts.time.isoformat()
segments: list[polyflake.Segment] = polyflake.explain(first, "twitter")
bits: str = segments[0].bits
text: str = polyflake.format_id(first, "base58")
raw: bytes = polyflake.format_id(first, "bytes")
decimal: str = polyflake.format_id(first)
encoding: polyflake.Encoding = "hex"
like: polyflake.LayoutLike = "twitter"
back: int = polyflake.parse_id(text, "base58")
clock = polyflake.ManualClock(1_700_000_000_000)
test_generator = polyflake.Generator("snowflake", clock=clock, node_id=1)
try:
    polyflake.compose("twitter", timestamp_ms=0, sequence=0, datacenter_id=0, machine_id=0)
except polyflake.TimestampBeforeEpochError as e:
    code: str = e.code


def leased(endpoints: list[str]) -> polyflake.Generator:
    """Type-checked, not run: the etcd tests run it against a real etcd."""
    return polyflake.Generator.from_etcd(
        "twitter", endpoints, prefix="/ids", ttl=10, keep_alive=3.0, node_range=(0, 512)
    )


def checked(endpoints: list[str]) -> polyflake.Generator:
    """Type-checked, not run: a node check on a lease."""
    return polyflake.Generator.from_etcd("twitter", endpoints, check=lambda nodes: nodes != (0, 0))


def served(urls: list[str]) -> list[int]:
    """Type-checked, not run: test_service.py runs it against real replicas."""
    with polyflake.Generator.from_service(urls, batch=2000, deadline=2.5) as service:
        one: int = service.next_id()
        stall: float = service.stats().longest_stall
        assert stall >= 0
        return [one, *service.next_ids(10)]


is_key: bool = polyflake.is_id_key("user_id")
names: list[str] = polyflake.Layout.TWITTER.field_names
at: datetime = polyflake.decode(first, "twitter").time
