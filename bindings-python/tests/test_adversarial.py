"""Random bad input against every entry point of the installed wheel: no
crash, no error without a code (or the language's own TypeError, ValueError
or OverflowError naming the argument), and no input silently changed.
`POLYFLAKE_FUZZ_CASES` sets how many calls (a few thousand in `make test`,
100,000 in `make fuzz`); `POLYFLAKE_FUZZ_SEED` replays a run."""

from __future__ import annotations

import math
import os
import random
from collections.abc import Callable
from typing import Any

import polyflake

CASES = int(os.environ.get("POLYFLAKE_FUZZ_CASES", "3000"))
SEED = int(os.environ.get("POLYFLAKE_FUZZ_SEED", str(random.randrange(2**32))))

PRESETS = list(polyflake.Layout.PRESETS)
ALLOWED = (polyflake.PolyflakeError, TypeError, ValueError, OverflowError)


def value(rng: random.Random) -> Any:
    """Something a careless or hostile caller might pass."""
    kind = rng.randrange(16)
    if kind == 0:
        return rng.randrange(-(2**70), 2**70)
    if kind == 1:
        return rng.choice([0, 1, -1, 2**63, 2**64, 2**64 - 1, -(2**63), 2**53 + 1, 4095, 4096])
    if kind == 2:
        return rng.choice([0.0, -0.5, 1.5, math.nan, math.inf, -math.inf, 1e300])
    if kind == 3:
        return "".join(rng.choice("0123456789abcdefXYZ-+ _\x00é") for _ in range(rng.randrange(20)))
    if kind == 4:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(12)))
    if kind == 5:
        return rng.choice([None, True, False, [], {}, (), object(), polyflake])
    if kind == 6:
        return rng.choice(PRESETS + ["", "Twitter", "twitter ", "custom", "x" * 1000])
    if kind == 7:
        return rng.choice(list(polyflake.ENCODINGS) + ["BASE58", "base62", ""])
    if kind == 8:
        return [value(rng) for _ in range(rng.randrange(3))]
    if kind == 9:
        return {str(value(rng))[:8]: value(rng) for _ in range(rng.randrange(3))}
    return rng.randrange(0, 2**64)


def layout_arg(rng: random.Random) -> Any:
    if rng.random() < 0.6:
        return rng.choice(PRESETS)
    try:
        nodes = {f"f{i}": rng.randrange(-2, 70) for i in range(rng.randrange(0, 10))}
        return polyflake.Layout.custom(
            value(rng) if rng.random() < 0.3 else rng.randrange(0, 2**41),
            value(rng) if rng.random() < 0.3 else rng.randrange(0, 66),
            nodes,
            rng.choice([None, 0, 1, 12, 70, value(rng)]),
            rng.choice([None, 0, 1, 10, value(rng)]),
        )
    except ALLOWED as e:
        coded(e)
        return value(rng)


def coded(e: BaseException) -> None:
    if isinstance(e, polyflake.PolyflakeError):
        assert isinstance(e.code, str) and e.code.isupper(), e
    else:
        assert isinstance(e, (TypeError, ValueError, OverflowError)), repr(e)
        assert str(e), f"{type(e).__name__} without a message"


def checked_decode(rng: random.Random) -> None:
    layout, id = layout_arg(rng), value(rng)
    parts = polyflake.decode(id, layout)
    # Accepted: it was an exact int, and it comes back exactly.
    assert type(id) is int and parts.id == id
    fields = {k: v for k, v in parts._asdict().items() if k not in ("timestamp_ms", "sequence")}
    again = polyflake.compose(
        layout, timestamp_ms=parts.timestamp_ms, sequence=parts.sequence, **fields
    )
    assert again == id


def checked_compose(rng: random.Random) -> None:
    layout = layout_arg(rng)
    kwargs = {k: value(rng) for k in rng.sample(
        ["datacenter_id", "machine_id", "node_id", "worker_id", "process_id", "shard_id", "f0"],
        rng.randrange(0, 4),
    )}  # fmt: skip
    ts, seq = value(rng), value(rng)
    id = polyflake.compose(layout, timestamp_ms=ts, sequence=seq, **kwargs)
    parts = polyflake.decode(id, layout)
    assert parts.sequence == seq and all(getattr(parts, k) == v for k, v in kwargs.items())


CASELESS = ("hex", "base36", "crockford32")


def encoding_arg(rng: random.Random) -> Any:
    return value(rng) if rng.random() < 0.3 else rng.choice(polyflake.ENCODINGS)


def checked_parse(rng: random.Random) -> None:
    text, encoding = value(rng), encoding_arg(rng)
    id = polyflake.parse_id(text, encoding)
    assert 0 <= id < 2**64
    # Accepted: the text was the canonical spelling (letter case aside where it may vary).
    formatted: Any = polyflake.format_id(id, encoding)
    if isinstance(text, bytes) and encoding != "bytes":
        formatted = formatted.encode()  # text given as its ASCII bytes
    if encoding in CASELESS:
        # Crockford's canonical spelling is upper case, hex's and base36's lower.
        assert formatted.lower() == text.lower()
    else:
        assert formatted == text


def checked_format(rng: random.Random) -> None:
    id, encoding = value(rng), encoding_arg(rng)
    text = polyflake.format_id(id, encoding)
    assert polyflake.parse_id(text, encoding) == id


def checked_generator(rng: random.Random) -> None:
    layout = layout_arg(rng)
    kwargs = {
        k: value(rng) for k in rng.sample(["datacenter_id", "machine_id", "node_id", "shard_id"], 2)
    }
    policy = rng.choice(["fail", "wait", "logical", value(rng)])
    g = polyflake.Generator(layout, on_clock_backwards=policy, **kwargs)
    assert dict(g.node_fields) == kwargs or not kwargs
    ids = g.next_ids(value(rng) if rng.random() < 0.5 else rng.randrange(0, 50))
    assert all(a < b for a, b in zip(ids, ids[1:], strict=False))


def checked_range(rng: random.Random) -> None:
    layout, ts = layout_arg(rng), value(rng)
    low, high = polyflake.min_id(layout, ts), polyflake.max_id(layout, ts)
    assert low <= high and polyflake.decode(low, layout).timestamp_ms <= ts


def checked_json(rng: random.Random) -> None:
    text = rng.choice(['{"id": 5}', '{"id": "5"}', '{"id": "-1"}', '{"id": "18446744073709551616"}',
                       '{"id": 1.5}', '{"id": null}', "[", str(value(rng))])  # fmt: skip
    loaded = polyflake.loads(text)
    if isinstance(loaded, dict) and "id" in loaded and loaded["id"] is not None:
        assert type(loaded["id"]) is int and 0 <= loaded["id"] < 2**64


CALLS: list[Callable[[random.Random], None]] = [
    checked_decode,
    checked_compose,
    checked_parse,
    checked_format,
    checked_generator,
    checked_range,
    checked_json,
]


def test_random_bad_input_is_refused_with_a_code_never_crashes_or_changes() -> None:
    rng = random.Random(SEED)
    outcomes = {"accepted": 0, "refused": 0}
    for case in range(CASES):
        call = CALLS[case % len(CALLS)]
        try:
            call(rng)
            outcomes["accepted"] += 1
        except (polyflake.PolyflakeError, TypeError, ValueError, OverflowError) as e:
            coded(e)
            outcomes["refused"] += 1
        except AssertionError as e:
            raise AssertionError(f"seed {SEED}, case {case} ({call.__name__}): {e}") from e
    # Both paths were exercised: the loop is not refusing (or accepting) everything.
    assert outcomes["accepted"] > CASES // 20 and outcomes["refused"] > CASES // 20, outcomes
