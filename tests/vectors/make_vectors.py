#!/usr/bin/env python3
"""Writes the golden vectors (*.json beside this file).

Every expected value here comes from this file's own reference model, written
independently of polyflake's Rust core (Python's unbounded ints, the standard
library's base64), or from a public source named in the case's "source".
The model is checked against those public values before anything is written.

    python3 tests/vectors/make_vectors.py          # rewrite the JSON files
    python3 tests/vectors/make_vectors.py --check  # fail if they are stale
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
U64 = (1 << 64) - 1

# ---------------------------------------------------------------- layouts ---

PRESETS = {
    "twitter": dict(epoch_ms=1288834974657, tick_ms=1, time_bits=41,
                    nodes=[("datacenter_id", 5), ("machine_id", 5)], sequence_bits=12,
                    sequence_above_nodes=False,
                    source="twitter-archive/snowflake (twepoch = 1288834974657L, 5+5 worker bits, 12 sequence bits)"),
    "snowflake": dict(epoch_ms=1288834974657, tick_ms=1, time_bits=41,
                      nodes=[("node_id", 10)], sequence_bits=12, sequence_above_nodes=False,
                      source="bwmarrin/snowflake (Epoch 1288834974657, NodeBits 10, StepBits 12)"),
    "discord": dict(epoch_ms=1420070400000, tick_ms=1, time_bits=42,
                    nodes=[("worker_id", 5), ("process_id", 5)], sequence_bits=12,
                    sequence_above_nodes=False,
                    source="Discord Developer Docs, Reference > Snowflakes"),
    "instagram": dict(epoch_ms=1314220021721, tick_ms=1, time_bits=41,
                      nodes=[("shard_id", 13)], sequence_bits=10, sequence_above_nodes=False,
                      source="Instagram Engineering, 'Sharding & IDs at Instagram' (our_epoch := 1314220021721)"),
    "sonyflake": dict(epoch_ms=1409529600000, tick_ms=10, time_bits=39,
                      nodes=[("machine_id", 16)], sequence_bits=8, sequence_above_nodes=True,
                      source="sony/sonyflake (StartTime 2014-09-01 UTC, 10 ms unit, 39/8/16 bits)"),
}

CUSTOM = {
    "wide21": dict(epoch_ms=1288834974657, tick_ms=1, time_bits=41, nodes=[("node_id", 1)],
                   sequence_bits=21, sequence_above_nodes=False),
    "tiny": dict(epoch_ms=1000, tick_ms=1, time_bits=20, nodes=[("region", 3), ("worker", 4)],
                 sequence_bits=2, sequence_above_nodes=False),
    "tenths": dict(epoch_ms=0, tick_ms=100, time_bits=30, nodes=[("m", 6)], sequence_bits=4,
                   sequence_above_nodes=True),
    "full64": dict(epoch_ms=0, tick_ms=1, time_bits=44, nodes=[("a", 8)], sequence_bits=12,
                   sequence_above_nodes=False),
    "seqonly": dict(epoch_ms=1600000000000, tick_ms=1, time_bits=40, nodes=[], sequence_bits=10,
                    sequence_above_nodes=False),
}

ALL_LAYOUTS = {**PRESETS, **CUSTOM}


def layout_json(spec: dict) -> dict:
    return {
        "epoch_ms": str(spec["epoch_ms"]),
        "tick_ms": spec["tick_ms"],
        "time_bits": spec["time_bits"],
        "nodes": [{"name": n, "bits": b} for n, b in spec["nodes"]],
        "sequence_bits": spec["sequence_bits"],
        "sequence_above_nodes": spec["sequence_above_nodes"],
    }


class Model:
    """The reference model of one layout: shifts from the least significant bit up."""

    def __init__(self, name: str, spec: dict):
        self.name = name
        self.spec = spec
        self.epoch = spec["epoch_ms"]
        self.tick = spec["tick_ms"]
        self.time_bits = spec["time_bits"]
        self.seq_bits = spec["sequence_bits"]
        self.nodes = list(spec["nodes"])
        shift = 0
        self.node_shift: dict[str, int] = {}
        if not spec["sequence_above_nodes"]:
            self.seq_shift = 0
            shift = self.seq_bits
        for n, b in reversed(self.nodes):
            self.node_shift[n] = shift
            shift += b
        if spec["sequence_above_nodes"]:
            self.seq_shift = shift
            shift += self.seq_bits
        self.time_shift = shift
        self.unused = 64 - shift - self.time_bits
        self.max_ticks = (1 << self.time_bits) - 1
        self.max_seq = (1 << self.seq_bits) - 1
        self.max_ts = self.epoch + (self.max_ticks + 1) * self.tick - 1
        self.id_mask = (1 << (64 - self.unused)) - 1

    def ticks(self, ts: int) -> int:
        assert self.epoch <= ts <= self.max_ts
        return (ts - self.epoch) // self.tick

    def compose(self, ts: int, seq: int, nodes: dict[str, int]) -> int:
        assert 0 <= seq <= self.max_seq
        v = self.ticks(ts) << self.time_shift | seq << self.seq_shift
        for n, b in self.nodes:
            assert 0 <= nodes[n] < (1 << b)
            v |= nodes[n] << self.node_shift[n]
        assert 0 <= v <= U64
        return v

    def decode(self, id_: int) -> dict:
        assert id_ & ~self.id_mask == 0
        ticks = id_ >> self.time_shift
        return {
            "ticks": ticks,
            "timestamp_ms": self.epoch + ticks * self.tick,
            "sequence": (id_ >> self.seq_shift) & self.max_seq,
            "nodes": {n: (id_ >> self.node_shift[n]) & ((1 << b) - 1) for n, b in self.nodes},
        }

    def segments(self, id_: int) -> list[dict]:
        parts = self.decode(id_)
        segs = []
        if self.unused:
            segs.append(("unused", 63, 64 - self.unused, 0))
        segs.append(("time", 63 - self.unused, self.time_shift, parts["ticks"]))
        body = [(n, self.node_shift[n] + b - 1, self.node_shift[n], parts["nodes"][n]) for n, b in self.nodes]
        seq = ("sequence", self.seq_shift + self.seq_bits - 1, self.seq_shift, parts["sequence"])
        body = [seq] + body if self.spec["sequence_above_nodes"] else body + [seq]
        out = []
        for name, msb, lsb, value in segs + body:
            width = msb - lsb + 1
            bits = format(id_, "064b")[63 - msb:64 - lsb]
            assert int(bits, 2) == value
            out.append({"name": name, "msb": msb, "lsb": lsb, "width": width,
                        "value": str(value), "bits": bits})
        assert "".join(s["bits"] for s in out) == format(id_, "064b")
        return out

    def min_id(self, ts: int) -> int:
        return self.ticks(ts) << self.time_shift

    def max_id(self, ts: int) -> int:
        return self.min_id(ts) | ((1 << self.time_shift) - 1)


MODELS = {name: Model(name, spec) for name, spec in ALL_LAYOUTS.items()}


def iso(ms: int) -> str | None:
    if not (0 <= ms < 253402300800000):
        return None
    t = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(milliseconds=ms)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


# ------------------------------------------------------------- encodings ---

BASE32 = "ybndrfg8ejkmcpqxot1uwisza345h769"
BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"
BASE58 = "123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ"
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def positional(n: int, alphabet: str) -> str:
    digits = []
    while True:
        n, r = divmod(n, len(alphabet))
        digits.append(alphabet[r])
        if n == 0:
            return "".join(reversed(digits))


def encodings_of(n: int) -> dict:
    return {
        "decimal": str(n),
        "hex": f"{n:016x}",
        "base2": bin(n)[2:],
        "base32": positional(n, BASE32),
        "base36": positional(n, BASE36),
        "base58": positional(n, BASE58),
        "base64": base64.b64encode(str(n).encode()).decode(),
        "crockford32": "".join(CROCKFORD[(n >> (5 * i)) & 31] for i in reversed(range(13))),
        "bytes": n.to_bytes(8, "big").hex(),
    }


# -------------------------------------------------------- generator model ---

class GenModel:
    """What a generator must issue, step by step, under a manual clock."""

    def __init__(self, model: Model, nodes: dict, policy: str, max_wait_ms: int, now: int):
        self.m, self.nodes, self.policy, self.max_wait, self.now = model, nodes, policy, max_wait_ms, now
        self.last = None  # (ticks, seq)

    def issue(self, ticks: int, seq: int) -> int:
        self.last = (ticks, seq)
        ts = self.m.epoch + ticks * self.m.tick
        return self.m.compose(ts, seq, self.nodes)

    def next(self):
        m = self.m
        while True:
            if self.now < m.epoch:
                return ("error", "TIMESTAMP_BEFORE_EPOCH")
            if self.now > m.max_ts:
                return ("error", "TIMESTAMP_OVERFLOW")
            now = m.ticks(self.now)
            if self.last is None or now > self.last[0]:
                return ("id", self.issue(now, 0))
            last, seq = self.last
            if now == last or self.policy == "logical":
                if seq < m.max_seq:
                    return ("id", self.issue(last, seq + 1))
                if last == m.max_ticks:
                    return ("error", "TIMESTAMP_OVERFLOW")
                if now == last:  # wait for the next tick: a manual clock jumps there
                    self.now = m.epoch + (last + 1) * m.tick
                    continue
                return ("id", self.issue(last + 1, 0))
            behind = m.epoch + last * m.tick - self.now
            if self.policy == "wait" and behind <= self.max_wait:
                self.now = m.epoch + last * m.tick
                continue
            return ("error", "CLOCK_MOVED_BACKWARDS")


def scenario(name, layout, nodes, policy, start, script, max_wait_ms=5):
    m = MODELS[layout]
    g = GenModel(m, nodes, policy, max_wait_ms, start)
    steps = []
    for op in script:
        kind = op[0]
        if kind == "set":
            g.now = op[1]
            steps.append({"op": "set", "ms": str(op[1])})
        elif kind == "next":
            for _ in range(op[1] if len(op) > 1 else 1):
                outcome, value = g.next()
                steps.append({"op": "next", "id": str(value)} if outcome == "id"
                             else {"op": "next", "error": value})
        elif kind == "next_ids":
            ids = []
            for _ in range(op[1]):
                outcome, value = g.next()
                assert outcome == "id"
                ids.append(str(value))
            steps.append({"op": "next_ids", "ids": ids})
        elif kind == "clock":
            steps.append({"op": "clock", "ms": str(g.now)})
    out = {"name": name, "layout": layout, "nodes": {k: str(v) for k, v in nodes.items()},
           "policy": policy, "start_ms": str(start), "steps": steps}
    if policy == "wait":
        out["max_wait_ms"] = max_wait_ms
    return out


# -------------------------------------------------------------- the files ---

def check_public_references() -> None:
    d = MODELS["discord"].decode(175928847299117063)
    assert d["timestamp_ms"] == 1462015105796 and d["sequence"] == 7
    assert d["nodes"] == {"worker_id": 1, "process_id": 0}
    assert encodings_of(1427970479175499776)["base32"] == "b8wjm1zroyyyy"
    assert encodings_of(1428076403798048768)["base58"] == "4jgmnx8Js8A"
    assert encodings_of(1116823421972381696)["bytes"] == "0f7fc0fc2f800000"
    assert encodings_of(13587)["bytes"] == "0000000000003513"


def compose_cases(rng: random.Random) -> list[dict]:
    cases = []

    def add(layout, id_, source=None):
        m = MODELS[layout]
        p = m.decode(id_)
        assert m.compose(p["timestamp_ms"], p["sequence"], p["nodes"]) == id_
        case = {"layout": layout, "id": str(id_), "timestamp_ms": str(p["timestamp_ms"]),
                "sequence": str(p["sequence"]), "nodes": {k: str(v) for k, v in p["nodes"].items()},
                "time": iso(p["timestamp_ms"]), "explain": m.segments(id_)}
        if source:
            case["source"] = source
        cases.append(case)

    add("discord", 175928847299117063,
        "Discord Developer Docs, Reference > Snowflakes: worked example (worker 1, process 0, increment 7, 2016-04-30T11:18:25.796Z)")
    ig = MODELS["instagram"]
    add("instagram", ig.compose(ig.epoch + 1387263000, 5001 % 1024, {"shard_id": 1341}),
        "Instagram Engineering, 'Sharding & IDs at Instagram': 1387263000 ms into the epoch, shard 1341, sequence 5001 % 1024")
    for name, m in MODELS.items():
        add(name, 0)
        add(name, m.id_mask)  # every field all ones, the last valid tick
        ones = {n: (1 << b) - 1 for n, b in m.nodes}
        add(name, m.compose(m.max_ts, 0, {n: 0 for n, _ in m.nodes}))
        add(name, m.compose(m.epoch, m.max_seq, ones))
        for boundary in (1 << 53, (1 << 63) - 1, U64):
            if boundary & ~m.id_mask == 0:
                add(name, boundary)
        for _ in range(4):
            ts = rng.randint(m.epoch, min(m.max_ts, m.epoch + 60 * 365 * 86400 * 1000))
            nodes = {n: rng.randrange(1 << b) for n, b in m.nodes}
            add(name, m.compose(ts, rng.randint(0, m.max_seq), nodes))
    return cases


def floor_cases() -> list[dict]:
    cases = []
    for layout, offset in (("sonyflake", 12345), ("tenths", 12_345_678_957)):
        m = MODELS[layout]
        ts = m.epoch + offset
        nodes = {n: 3 for n, _ in m.nodes}
        id_ = m.compose(ts, 2, nodes)
        cases.append({"layout": layout, "timestamp_ms": str(ts), "sequence": "2",
                      "nodes": {k: str(v) for k, v in nodes.items()}, "id": str(id_),
                      "decoded_timestamp_ms": str(m.decode(id_)["timestamp_ms"])})
    return cases


def min_max_cases() -> list[dict]:
    out = []
    for name, m in MODELS.items():
        for ts in (m.epoch, m.epoch + (m.max_ts - m.epoch) // 3 + 7, m.max_ts):
            out.append({"layout": name, "timestamp_ms": str(ts),
                        "min": str(m.min_id(ts)), "max": str(m.max_id(ts))})
    return out


def error_cases() -> list[dict]:
    out = []

    def compose(layout, ts, seq, nodes, code, field=None, why="", kind=None):
        case = {"op": "compose", "layout": layout, "timestamp_ms": str(ts), "sequence": str(seq),
                "nodes": {k: str(v) for k, v in nodes.items()}, "error": code, "why": why}
        if field:
            case["field"] = field
        if kind:
            case["kind"] = kind  # INVALID_ARGUMENT's kind (docs/contract.md)
        out.append(case)

    for name, m in MODELS.items():
        zeros = {n: 0 for n, _ in m.nodes}
        compose(name, m.epoch - 1, 0, zeros, "TIMESTAMP_BEFORE_EPOCH", why="one ms before the epoch")
        compose(name, m.max_ts + 1, 0, zeros, "TIMESTAMP_OVERFLOW", why="one ms past the last tick")
        compose(name, m.epoch, m.max_seq + 1, zeros, "FIELD_OUT_OF_RANGE", "sequence", "sequence one past its max")
        for n, b in m.nodes:
            compose(name, m.epoch, 0, {**zeros, n: 1 << b}, "FIELD_OUT_OF_RANGE", n, f"{n} one past its max")
        if m.nodes:
            missing = dict(list(zeros.items())[1:])
            compose(name, m.epoch, 0, missing, "INVALID_ARGUMENT", why="a node field is missing",
                    kind="missing_field")
        compose(name, m.epoch, 0, {**zeros, "bogus": 1}, "INVALID_ARGUMENT", why="an unknown node field",
                kind="unknown_name")
        if m.unused:
            for id_ in (1 << 63, U64):
                out.append({"op": "decode", "layout": name, "id": str(id_), "error": "FIELD_OUT_OF_RANGE",
                            "field": "id", "why": "an unused bit is set"})
        out.append({"op": "min_id", "layout": name, "timestamp_ms": str(m.epoch - 1),
                    "error": "TIMESTAMP_BEFORE_EPOCH", "why": "before the epoch"})
        out.append({"op": "max_id", "layout": name, "timestamp_ms": str(m.max_ts + 1),
                    "error": "TIMESTAMP_OVERFLOW", "why": "past the last tick"})
    sf = MODELS["sonyflake"]
    year = 365 * 86400 * 1000
    compose("sonyflake", sf.epoch + 175 * year, 0, {"machine_id": 0}, "TIMESTAMP_OVERFLOW",
            why="sony/sonyflake TestNextIDError: 175 years after the start time is past the end")
    return out


def encoding_vectors(rng: random.Random) -> dict:
    ids = [0, 1, 9, 10, 31, 32, 35, 36, 57, 58, 63, 64, 1 << 32, (1 << 53) - 1, 1 << 53, (1 << 53) + 1,
           (1 << 63) - 1, 1 << 63, U64 - 1, U64, 175928847299117063]
    ids += [rng.randrange(1 << 64) for _ in range(12)]
    cases = [{"id": str(i), **encodings_of(i)} for i in ids]
    public = [
        {"encoding": "base32", "text": "b8wjm1zroyyyy", "id": "1427970479175499776",
         "source": "bwmarrin/snowflake TestParseBase32"},
        {"encoding": "base58", "text": "4jgmnx8Js8A", "id": "1428076403798048768",
         "source": "bwmarrin/snowflake TestParseBase58"},
        {"encoding": "bytes", "text": "0f7fc0fc2f800000", "id": "1116823421972381696",
         "source": "bwmarrin/snowflake TestIntBytes"},
        {"encoding": "bytes", "text": "0000000000003513", "id": "13587",
         "source": "bwmarrin/snowflake TestMarshalsIntBytes"},
        {"encoding": "base64", "text": "MTExNjgxOTQ5NDY2MDk5NzEyMA==",
         "id": base64.b64decode("MTExNjgxOTQ5NDY2MDk5NzEyMA==").decode(),
         "source": "bwmarrin/snowflake TestBase64 (accepted; value by the standard library's base64)"},
        {"encoding": "base36", "text": "8hgmw4blvlkw", "id": str(int("8hgmw4blvlkw", 36)),
         "source": "bwmarrin/snowflake TestBase36 (accepted; value by int(text, 36))"},
        {"encoding": "base2", "text": "111101111111101110110101100101001000000000000000000000000000",
         "id": str(int("111101111111101110110101100101001000000000000000000000000000", 2)),
         "source": "bwmarrin/snowflake TestBase2 (accepted; value by int(text, 2))"},
        {"encoding": "decimal", "text": "1116766490855473152", "id": "1116766490855473152",
         "source": "bwmarrin/snowflake TestString"},
        {"encoding": "hex", "text": "1234567890ABCDEF", "id": str(0x1234567890ABCDEF),
         "source": "bwmarrin/snowflake TestHex (upper case accepted)"},
        {"encoding": "base36", "text": "8HGMW4BLVLKW", "id": str(int("8hgmw4blvlkw", 36)),
         "source": "upper case accepted, as strconv.ParseInt does"},
        {"encoding": "crockford32", "text": "7zzzzzzzzzzzz", "id": str((1 << 63) - 1),
         "source": "Crockford base32 is case-insensitive (TSID accepts lower case)"},
    ]
    for p in public:
        assert encodings_of(int(p["id"]))[p["encoding"]].lower() == p["text"].lower()
    bad = [
        ("base32", "B8WJM1ZROYYYY", "bwmarrin/snowflake TestParseBase32: capital case is invalid"),
        ("base32", "b8wjm1zroyyyl", "bwmarrin/snowflake TestParseBase32: l is not allowed"),
        ("base32", "b8wjm1zroyyyv", "bwmarrin/snowflake TestParseBase32: v is not allowed"),
        ("base32", "b8wjm1zroyyy2", "bwmarrin/snowflake TestParseBase32: 2 is not allowed"),
        ("base58", "0jgmnx8Js8A", "bwmarrin/snowflake TestParseBase58: 0 not allowed"),
        ("base58", "Ijgmnx8Js8A", "bwmarrin/snowflake TestParseBase58: I not allowed"),
        ("base58", "Ojgmnx8Js8A", "bwmarrin/snowflake TestParseBase58: O not allowed"),
        ("base58", "ljgmnx8Js8A", "bwmarrin/snowflake TestParseBase58: l not allowed"),
        ("base64", "MTExNjgxOTQ5NDY2MDk5NzEyMA", "bwmarrin/snowflake TestBase64: padding required"),
        ("base36", "68h5gmw443blv2lk1w", "bwmarrin/snowflake TestBase36: overflows 64 bits"),
        ("decimal", "1112316766490855473152", "bwmarrin/snowflake TestString: overflows 64 bits"),
        ("hex", "1234567890ABCDEG", "bwmarrin/snowflake TestHex: G is not hex"),
        ("hex", "1234567890ABCDEF8", "bwmarrin/snowflake TestHex: 17 digits"),
        ("base2", "1112316766490855473152", "bwmarrin/snowflake TestBase2: not binary"),
    ]
    errors = [{"encoding": e, "text": t, "error": "INVALID_ENCODING", "source": s} for e, t, s in bad]
    ours = [
        ("decimal", "", "empty"), ("decimal", "18446744073709551616", "2^64"), ("decimal", "-1", "sign"),
        ("decimal", "+1", "sign"), ("decimal", "007", "leading zeros"), ("decimal", " 7", "space"),
        ("decimal", "7 ", "trailing space"), ("decimal", "1e3", "exponent"),
        ("hex", "", "empty"), ("hex", "ff", "not 16 digits"), ("hex", "0x00000000000000ff", "prefix"),
        ("base2", "0101", "leading zeros"), ("base2", "1" * 65, "65 bits"),
        ("base32", "yb", "leading zero digit"), ("base32", "4" * 14, "overflows"),
        ("base36", positional(1 << 64, BASE36), "2^64"), ("base36", "0z", "leading zeros"),
        ("base58", "1a", "leading zero digit"), ("base58", positional(1 << 64, BASE58), "2^64"), ("base32", positional(1 << 64, BASE32), "2^64"),
        ("base64", "MTI=MTI=", "padding inside"), ("base64", "MDA3", "decimal with leading zeros"),
        ("base64", "LTE=", "negative decimal"), ("base64", "MQ=", "bad length"), ("base64", "MR==", "stray bits"),
        ("base64", "MTg0NDY3NDQwNzM3MDk1NTE2MTY=", "2^64"),
        ("crockford32", "G000000000000", "first character above F"), ("crockford32", "0000000000000U", "14 characters"),
        ("crockford32", "000000000000U", "U is not in the alphabet"), ("crockford32", "", "empty"),
    ]
    for e, t, why in ours:
        errors.append({"encoding": e, "text": t, "error": "INVALID_ENCODING", "why": why})
    errors.append({"encoding": "bytes", "text": "00000000000035", "error": "INVALID_ENCODING", "why": "7 bytes"})
    errors.append({"encoding": "bytes", "text": "000000000000351300", "error": "INVALID_ENCODING", "why": "9 bytes"})
    errors.append({"encoding": "bytes", "text": "", "error": "INVALID_ENCODING", "why": "empty"})
    assert int("3w5e11264sgsg", 36) == 1 << 64
    return {"note": "bytes are written as hex; text for every other encoding",
            "encodings": ["decimal", "hex", "base2", "base32", "base36", "base58", "base64",
                          "crockford32", "bytes"],
            "cases": cases, "parse_ok": public, "parse_errors": errors}


def generator_scenarios() -> list[dict]:
    tw = MODELS["twitter"].epoch
    t0 = tw + 1_000_000
    tiny0 = 5000
    nodes_tw = {"datacenter_id": 3, "machine_id": 17}
    nodes_tiny = {"region": 5, "worker": 9}
    return [
        scenario("same tick counts up, a new tick starts at 0", "twitter", nodes_tw, "fail", t0,
                 [("next", 3), ("set", t0 + 1), ("next", 2), ("clock",)]),
        scenario("sequence spent: waits for the next tick", "tiny", nodes_tiny, "fail", tiny0,
                 [("next", 4), ("clock",), ("next", 2), ("clock",)]),
        scenario("next_ids crosses ticks in one call", "tiny", nodes_tiny, "fail", tiny0,
                 [("next", 1), ("next_ids", 11), ("clock",)]),
        scenario("backwards, fail: refuses at once", "twitter", nodes_tw, "fail", t0,
                 [("next", 1), ("set", t0 - 3), ("next", 1), ("set", t0), ("next", 1)]),
        scenario("backwards, wait: 5 ms is waited out", "twitter", nodes_tw, "wait", t0,
                 [("next", 1), ("set", t0 - 5), ("next", 1), ("clock",)]),
        scenario("backwards, wait: 6 ms is too far", "twitter", nodes_tw, "wait", t0,
                 [("next", 1), ("set", t0 - 6), ("next", 1), ("clock",)]),
        scenario("backwards, wait with a 50 ms bound", "twitter", nodes_tw, "wait", t0,
                 [("next", 1), ("set", t0 - 50), ("next", 1), ("clock",), ("set", t0 - 100), ("next", 1)],
                 max_wait_ms=50),
        scenario("backwards, logical: counts on from the last tick, then runs ahead", "tiny", nodes_tiny,
                 "logical", tiny0, [("next", 1), ("set", tiny0 - 100), ("next", 5), ("clock",),
                                    ("set", tiny0 + 10), ("next", 1)]),
        scenario("sonyflake: 10 ms ticks, sequence above the machine id", "sonyflake", {"machine_id": 513},
                 "fail", MODELS["sonyflake"].epoch + 123_456_789,
                 [("next", 2), ("set", MODELS["sonyflake"].epoch + 123_456_795), ("next", 1),
                  ("set", MODELS["sonyflake"].epoch + 123_456_800), ("next", 1)]),
        scenario("before the epoch", "tiny", nodes_tiny, "fail", 999, [("next", 1), ("set", 1000), ("next", 1)]),
        scenario("the last tick, then past the end", "tiny", nodes_tiny, "fail", MODELS["tiny"].max_ts,
                 [("next", 4), ("next", 1), ("set", MODELS["tiny"].max_ts + 1), ("next", 1)]),
    ]


def build() -> dict[str, str]:
    check_public_references()
    rng = random.Random(20261130)
    files = {
        "layouts.json": {
            "presets": [{"name": n, **layout_json(s), "unused_bits": MODELS[n].unused,
                         "max_timestamp_ms": str(MODELS[n].max_ts), "source": s["source"]}
                        for n, s in PRESETS.items()],
            "custom": {n: {**layout_json(s), "unused_bits": MODELS[n].unused,
                           "max_timestamp_ms": str(MODELS[n].max_ts)} for n, s in CUSTOM.items()},
            "invalid": invalid_layouts(),
            "unknown_presets": ["Twitter", "TWITTER", "snowflakes", "custom", ""],
        },
        "compose.json": {"cases": compose_cases(rng), "floor": floor_cases(), "min_max": min_max_cases()},
        "errors.json": {"cases": error_cases()},
        "encodings.json": encoding_vectors(rng),
        "generator.json": {"note": "manual clock; waiting jumps the clock to the awaited ms",
                           "scenarios": generator_scenarios()},
    }
    return {name: json.dumps(body, indent=1) + "\n" for name, body in files.items()}


def invalid_layouts() -> list[dict]:
    def spec(**kw):
        base = dict(epoch_ms=0, tick_ms=1, time_bits=41, nodes=[("node_id", 10)], sequence_bits=12,
                    sequence_above_nodes=False)
        base.update(kw)
        return base

    bad = [
        ("zero-width time", spec(time_bits=0)),
        ("zero-width sequence", spec(sequence_bits=0)),
        ("65 bits", spec(nodes=[("node_id", 11)], time_bits=42)),
        ("duplicate field", spec(nodes=[("a", 2), ("a", 2)])),
        ("empty field name", spec(nodes=[("", 2)])),
        ("reserved field name", spec(nodes=[("sequence", 2)])),
        ("reserved field name", spec(nodes=[("timestamp_ms", 2)])),
        ("reserved field name (Node's parts.date)", spec(nodes=[("date", 2)])),
        ("reserved field name (Python's parts.to_dict)", spec(nodes=[("to_dict", 2)])),
        ("doubled underscore", spec(nodes=[("a__b", 2)])),
        ("trailing underscore", spec(nodes=[("a_", 2)])),
        ("two names, one camelCase spelling", spec(nodes=[("shard_1", 2), ("shard1", 2)])),
        ("upper-case field name", spec(nodes=[("Machine", 2)])),
        ("field name starting with a digit", spec(nodes=[("1a", 2)])),
        ("field name with a dash", spec(nodes=[("a-b", 2)])),
        ("zero-width field", spec(nodes=[("a", 0)])),
        ("zero tick", spec(tick_ms=0)),
        ("nine node fields", spec(nodes=[(f"f{i}", 1) for i in range(9)])),
        ("the last tick is past the largest Unix millisecond", spec(epoch_ms=(1 << 63) - 1000)),
    ]
    return [{"why": why, "spec": layout_json(s), "error": "INVALID_LAYOUT"} for why, s in bad]


def main() -> int:
    files = build()
    stale = [n for n, text in files.items() if not (HERE / n).exists() or (HERE / n).read_text() != text]
    if "--check" in sys.argv:
        if stale:
            print(f"stale golden vectors: {', '.join(stale)}; run {Path(__file__).name}", file=sys.stderr)
            return 1
        print(f"golden vectors up to date ({len(files)} files)")
        return 0
    for name, text in files.items():
        (HERE / name).write_text(text)
    print(f"wrote {len(files)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
