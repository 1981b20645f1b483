"""The golden vectors through SQL, against the installed extension in a real server."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import psycopg
import pytest

VECTORS = Path(__file__).resolve().parents[2] / "tests" / "vectors"
PRESETS = ("twitter", "snowflake", "discord", "instagram", "sonyflake")


def load(name: str) -> dict:
    return json.loads((VECTORS / name).read_text())


def signed(id_text: str) -> int:
    """The ID's 64 bits as SQL's bigint (the contract: Kotlin's Long, SQL's bigint)."""
    value = int(id_text)
    return value - (1 << 64) if value >= 1 << 63 else value


def unix_ms(at: dt.datetime) -> int:
    return (at - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)) // dt.timedelta(milliseconds=1)


def at(ms: str) -> dt.datetime:
    return dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(milliseconds=int(ms))


COMPOSE = [c for c in load("compose.json")["cases"] if c["layout"] in PRESETS]
MIN_MAX = [c for c in load("compose.json")["min_max"] if c["layout"] in PRESETS]
ENCODINGS = load("encodings.json")
ERRORS = [c for c in load("errors.json")["cases"] if c["layout"] in PRESETS]


def test_layouts_are_the_presets(sql: psycopg.Connection) -> None:
    rows = sql.execute(
        "SELECT name, epoch_ms, tick_ms, time_bits, node_fields, sequence_bits FROM polyflake.layouts()"
    ).fetchall()
    presets = {p["name"]: p for p in load("layouts.json")["presets"]}
    assert {r[0] for r in rows} == set(presets)
    for name, epoch_ms, tick_ms, time_bits, nodes, sequence_bits in rows:
        p = presets[name]
        assert (epoch_ms, tick_ms, time_bits, sequence_bits) == (
            int(p["epoch_ms"]),
            p["tick_ms"],
            p["time_bits"],
            p["sequence_bits"],
        )
        assert nodes == {n["name"]: n["bits"] for n in p["nodes"]}


@pytest.mark.parametrize("case", COMPOSE, ids=lambda c: f"{c['layout']}-{c['id']}")
def test_decode_compose_timestamp(sql: psycopg.Connection, case: dict) -> None:
    decoded = sql.execute(
        "SELECT polyflake.decode(%s, %s)", (signed(case["id"]), case["layout"])
    ).fetchone()[0]
    assert decoded["id"] == case["id"] and decoded["layout"] == case["layout"]
    assert decoded["timestamp_ms"] == case["timestamp_ms"]
    assert str(decoded["sequence"]) == case["sequence"]
    for field, value in case["nodes"].items():
        assert str(decoded[field]) == value, field
    nodes = json.dumps({k: int(v) for k, v in case["nodes"].items()})
    composed = sql.execute(
        "SELECT polyflake.compose(%s, %s, %s, %s::jsonb)",
        (case["layout"], int(case["timestamp_ms"]), int(case["sequence"]), nodes),
    ).fetchone()[0]
    assert composed == signed(case["id"])
    stamp = sql.execute(
        "SELECT polyflake.timestamp(%s, %s)", (signed(case["id"]), case["layout"])
    ).fetchone()[0]
    assert unix_ms(stamp) == int(case["timestamp_ms"])


@pytest.mark.parametrize(
    "case", MIN_MAX, ids=lambda c: f"{c['layout']}-{c['timestamp_ms']}"
)
def test_min_and_max_id(sql: psycopg.Connection, case: dict) -> None:
    low, high = sql.execute(
        "SELECT polyflake.min_id(%s, %s), polyflake.max_id(%s, %s)",
        (
            at(case["timestamp_ms"]),
            case["layout"],
            at(case["timestamp_ms"]),
            case["layout"],
        ),
    ).fetchone()
    assert (low, high) == (signed(case["min"]), signed(case["max"]))


@pytest.mark.parametrize("case", ENCODINGS["cases"], ids=lambda c: c["id"])
def test_every_encoding_both_ways(sql: psycopg.Connection, case: dict) -> None:
    for encoding in ENCODINGS["encodings"]:
        if encoding == "bytes":  # a bytea in SQL; the vectors spell it in hex
            raw = sql.execute(
                "SELECT polyflake.to_bytes(%s)", (signed(case["id"]),)
            ).fetchone()[0]
            assert raw.hex() == case["bytes"]
            back = sql.execute(
                "SELECT polyflake.from_bytes(%s)", (bytes.fromhex(case["bytes"]),)
            ).fetchone()[0]
        else:
            text = sql.execute(
                "SELECT polyflake.format(%s, %s)", (signed(case["id"]), encoding)
            ).fetchone()[0]
            assert text == case[encoding], encoding
            back = sql.execute(
                "SELECT polyflake.parse(%s, %s)", (case[encoding], encoding)
            ).fetchone()[0]
        assert back == signed(case["id"]), encoding


def parse_call(case: dict) -> tuple[str, tuple]:
    if case["encoding"] == "bytes":
        return "SELECT polyflake.from_bytes(%s)", (bytes.fromhex(case["text"]),)
    return "SELECT polyflake.parse(%s, %s)", (case["text"], case["encoding"])


@pytest.mark.parametrize("case", ENCODINGS["parse_ok"], ids=lambda c: c["text"])
def test_parse_accepts(sql: psycopg.Connection, case: dict) -> None:
    assert sql.execute(*parse_call(case)).fetchone()[0] == signed(case["id"])


@pytest.mark.parametrize(
    "case", ENCODINGS["parse_errors"], ids=lambda c: c["text"] or "empty"
)
def test_parse_refuses_with_the_code(sql: psycopg.Connection, case: dict) -> None:
    with pytest.raises(psycopg.errors.InvalidTextRepresentation) as refused:
        sql.execute(*parse_call(case))
    assert refused.value.diag.message_primary.startswith(case["error"] + ":")


def test_bytes_are_not_text(sql: psycopg.Connection) -> None:
    with pytest.raises(psycopg.errors.InvalidParameterValue) as refused:
        sql.execute("SELECT polyflake.parse('0000000000000001', 'bytes')")
    assert refused.value.diag.message_primary.startswith("INVALID_ARGUMENT:")
    assert "polyflake.from_bytes(bytea)" in refused.value.diag.message_primary
    # format refuses the same name: hex text called `bytes` would read back as
    # nothing parse takes.
    with pytest.raises(psycopg.errors.InvalidParameterValue) as refused:
        sql.execute("SELECT polyflake.format(1, 'bytes')")
    assert refused.value.diag.message_primary.startswith("INVALID_ARGUMENT:")
    assert "polyflake.to_bytes(bigint)" in refused.value.diag.message_primary
    (raw,) = sql.execute("SELECT polyflake.to_bytes(1)").fetchone()
    assert bytes(raw) == (1).to_bytes(8, "big")


def test_a_plain_login_role_calls_every_function(
    sql: psycopg.Connection, dsn: str
) -> None:
    """As an application connects: no superuser, no grant of its own."""
    role = "polyflake_app"
    sql.execute(f"DROP ROLE IF EXISTS {role}")
    sql.execute(f"CREATE ROLE {role} LOGIN")
    try:
        with psycopg.connect(
            dsn.replace("//polyflake@", f"//{role}@"), autocommit=True
        ) as app:
            (who,) = app.execute("SELECT current_user").fetchone()
            assert who == role
            (issued,) = app.execute("SELECT polyflake.next_id()").fetchone()
            (back,) = app.execute(
                "SELECT polyflake.parse(polyflake.format(%s, 'base58'), 'base58')",
                (issued,),
            ).fetchone()
            assert back == issued > 0
            (at,) = app.execute(
                "SELECT polyflake.timestamp(%s, 'twitter')", (issued,)
            ).fetchone()
            assert at is not None
    finally:
        sql.execute(f"DROP ROLE {role}")


@pytest.mark.parametrize("case", ERRORS, ids=lambda c: f"{c['op']}-{c['why']}")
def test_errors_are_sql_errors_with_the_contract_code(
    sql: psycopg.Connection, case: dict
) -> None:
    op = case["op"]
    if op == "decode":
        query, args = (
            "SELECT polyflake.decode(%s, %s)",
            (signed(case["id"]), case["layout"]),
        )
    elif op in ("min_id", "max_id"):
        query, args = (
            f"SELECT polyflake.{op}(%s, %s)",
            (at(case["timestamp_ms"]), case["layout"]),
        )
    else:
        nodes = json.dumps({k: int(v) for k, v in case["nodes"].items()})
        query = "SELECT polyflake.compose(%s, %s, %s, %s::jsonb)"
        args = (case["layout"], int(case["timestamp_ms"]), int(case["sequence"]), nodes)
    with pytest.raises(psycopg.DataError) as refused:
        sql.execute(query, args)
    assert refused.value.diag.message_primary.startswith(case["error"] + ":"), (
        refused.value.diag.message_primary
    )
    assert refused.value.sqlstate.startswith("22")


def test_a_discord_id_as_a_negative_bigint_keeps_its_bits(
    sql: psycopg.Connection,
) -> None:
    # discord and instagram use bit 63: such IDs are negative bigints, the same bits.
    composed = sql.execute(
        "SELECT polyflake.compose('discord', 4000000000000, 1, '{\"worker_id\": 2, \"process_id\": 3}')"
    ).fetchone()[0]
    assert composed < 0
    decoded = sql.execute(
        "SELECT polyflake.decode(%s, 'discord')", (composed,)
    ).fetchone()[0]
    assert (
        int(decoded["id"]) == composed + (1 << 64)
        and decoded["timestamp_ms"] == "4000000000000"
    )


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("SELECT polyflake.decode(1, 'nope')", "INVALID_LAYOUT"),
        ("SELECT polyflake.format(1, 'base99')", "INVALID_ARGUMENT"),
        (
            "SELECT polyflake.compose('twitter', 1700000000000, 0, '[1, 2]')",
            "INVALID_ARGUMENT",
        ),
        (
            "SELECT polyflake.compose('twitter', 1700000000000, -1, '{\"datacenter_id\": 0, \"machine_id\": 0}')",
            "INVALID_ARGUMENT",
        ),
        (
            "SELECT polyflake.compose('twitter', 1700000000000, 0, '{\"datacenter_id\": -3, \"machine_id\": 0}')",
            "INVALID_ARGUMENT",
        ),
        (
            "SELECT polyflake.compose('twitter', 1700000000000, 0, '{\"datacenter_id\": 1}')",
            "INVALID_ARGUMENT",
        ),
        (
            'SELECT polyflake.compose(\'twitter\', 1700000000000, 0, \'{"datacenter_id": 1, "machine_id": 2, "shard": 3}\')',
            "INVALID_ARGUMENT",
        ),
        (
            "SELECT polyflake.compose('twitter', 1700000000000, 0, '{\"datacenter_id\": 32, \"machine_id\": 0}')",
            "FIELD_OUT_OF_RANGE",
        ),
        ("SELECT polyflake.from_bytes('\\x0102'::bytea)", "INVALID_ENCODING"),
    ],
)
def test_bad_input_is_an_sql_error_with_a_code(
    sql: psycopg.Connection, query: str, code: str
) -> None:
    with pytest.raises(psycopg.DataError) as refused:
        sql.execute(query)
    assert refused.value.diag.message_primary.startswith(code + ":"), (
        refused.value.diag.message_primary
    )


def test_random_bad_input_never_ends_a_backend(sql: psycopg.Connection) -> None:
    """Thousands of random calls (next_ids among them): each answers or raises a coded class-22 error, and the
    connection (so the backend) survives every one; the session fixture then finds no
    'terminated by signal' in the server's log."""
    import random

    rng = random.Random(20261201)
    names = [*PRESETS, "", "TWITTER", "x" * 300, "snowflake\x01"]
    encodings = [*ENCODINGS["encodings"], "", "hex\x01", "base1000"]
    answered = refused = 0
    for _ in range(3000):
        pick = rng.randrange(6)
        big = rng.choice(
            [0, -1, 1 << 62, -(1 << 63), (1 << 63) - 1, rng.getrandbits(64) - (1 << 63)]
        )
        if pick == 0:
            query, args = "SELECT polyflake.decode(%s, %s)", (big, rng.choice(names))
        elif pick == 1:
            text = "".join(
                chr(rng.randrange(1, 0x250)) for _ in range(rng.randrange(0, 40))
            )
            query, args = (
                "SELECT polyflake.parse(%s, %s)",
                (text, rng.choice(encodings)),
            )
        elif pick == 2:
            nodes = {
                rng.choice(
                    [
                        "datacenter_id",
                        "machine_id",
                        "node_id",
                        "worker_id",
                        "shard_id",
                        "z",
                    ]
                ): rng.choice([0, 1, -1, 31, 1 << 40, 2.5, "7", None])
                for _ in range(rng.randrange(0, 4))
            }
            query = "SELECT polyflake.compose(%s, %s, %s, %s::jsonb)"
            args = (
                rng.choice(names),
                rng.choice([big, 0, 1700000000000]),
                rng.choice([0, -5, 1 << 20, big]),
                json.dumps(nodes),
            )
        elif pick == 3:
            query, args = (
                "SELECT polyflake.from_bytes(%s)",
                (rng.randbytes(rng.randrange(0, 12)),),
            )
        elif pick == 4:
            query, args = (
                "SELECT count(*) FROM polyflake.next_ids(%s, %s)",
                (
                    rng.choice([-1, 0, 3, (1 << 24) + 1, big]),
                    rng.choice([*names, None]),
                ),
            )
        else:
            stamp = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(
                milliseconds=rng.randrange(-(10**13), 10**13)
            )
            query, args = (
                f"SELECT polyflake.{rng.choice(['min_id', 'max_id'])}(%s, %s)",
                (stamp, rng.choice(names)),
            )
        try:
            sql.execute(query, args)
            answered += 1
        except psycopg.DataError as error:
            assert error.sqlstate.startswith("22"), error.sqlstate
            code = error.diag.message_primary.split(":", 1)[0]
            assert code.isupper() and "_" in code or code.isalpha(), (
                error.diag.message_primary
            )
            refused += 1
    assert sql.execute("SELECT 1").fetchone() == (1,)
    assert answered > 100 and refused > 100, (answered, refused)
