"""Every golden vector, against the installed wheel."""

from __future__ import annotations

import datetime as dt
from typing import Any

import polyflake
import pytest
import vectors as v

LAYOUTS = v.load("layouts.json")
COMPOSE = v.load("compose.json")
ERRORS = v.load("errors.json")["cases"]
ENCODINGS = v.load("encodings.json")
SCENARIOS = v.load("generator.json")["scenarios"]


def test_runs_against_the_installed_package_not_the_source_tree() -> None:
    assert "site-packages" in polyflake.__file__, polyflake.__file__


@pytest.mark.parametrize("definition", LAYOUTS["presets"], ids=lambda d: d["name"])
def test_presets(definition: dict[str, Any]) -> None:
    layout = polyflake.Layout.preset(definition["name"])
    assert layout == getattr(polyflake.Layout, definition["name"].upper())
    assert layout == polyflake.Layout(definition["name"])
    assert layout.epoch_ms == int(definition["epoch_ms"])
    assert layout.tick_ms == definition["tick_ms"]
    assert layout.time_bits == definition["time_bits"]
    assert layout.sequence_bits == definition["sequence_bits"]
    assert layout.sequence_above_nodes == definition["sequence_above_nodes"]
    assert layout.unused_bits == definition["unused_bits"]
    assert layout.max_timestamp_ms == int(definition["max_timestamp_ms"])
    assert layout.nodes == [(n["name"], n["bits"]) for n in definition["nodes"]]
    assert v.build_spec(definition).nodes == layout.nodes


@pytest.mark.parametrize("case", LAYOUTS["invalid"], ids=lambda c: c["why"])
def test_invalid_layouts(case: dict[str, Any]) -> None:
    with pytest.raises(polyflake.InvalidLayoutError) as e:
        v.build_spec(case["spec"])
    assert e.value.code == case["error"]


@pytest.mark.parametrize("name", LAYOUTS["unknown_presets"])
def test_unknown_presets(name: str) -> None:
    with pytest.raises(polyflake.InvalidLayoutError):
        polyflake.Layout.preset(name)
    with pytest.raises(polyflake.InvalidLayoutError):
        polyflake.decode(0, name)


@pytest.mark.parametrize("case", COMPOSE["cases"], ids=v.ids(COMPOSE["cases"], "layout", "id"))
def test_compose_decode_explain(case: dict[str, Any]) -> None:
    layout = v.layout(case["layout"])
    id_ = int(case["id"])
    by_name = case["layout"] if case["layout"] in polyflake.Layout.PRESETS else layout
    assert (
        polyflake.compose(
            by_name,
            timestamp_ms=int(case["timestamp_ms"]),
            sequence=int(case["sequence"]),
            **v.nodes(case),
        )
        == id_
    )
    parts = polyflake.decode(id_, by_name)
    assert parts.id == id_
    assert parts.timestamp_ms == int(case["timestamp_ms"])
    assert parts.sequence == int(case["sequence"])
    for name, value in v.nodes(case).items():
        assert getattr(parts, name) == value
    assert parts._asdict() == {
        "timestamp_ms": int(case["timestamp_ms"]),
        **v.nodes(case),
        "sequence": int(case["sequence"]),
    }
    if case["time"] is not None:
        expected = dt.datetime.strptime(case["time"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(
            tzinfo=dt.timezone.utc
        )
        assert parts.time == expected
        assert parts.time.tzinfo is not None
    segments = polyflake.explain(id_, layout)
    assert [
        {
            "name": s.name,
            "msb": s.msb,
            "lsb": s.lsb,
            "width": s.width,
            "value": str(s.value),
            "bits": s.bits,
        }
        for s in segments
    ] == case["explain"]


@pytest.mark.parametrize("case", COMPOSE["floor"], ids=v.ids(COMPOSE["floor"], "layout"))
def test_timestamps_inside_a_tick_are_floored(case: dict[str, Any]) -> None:
    layout = v.layout(case["layout"])
    id_ = polyflake.compose(
        layout,
        timestamp_ms=int(case["timestamp_ms"]),
        sequence=int(case["sequence"]),
        **v.nodes(case),
    )
    assert id_ == int(case["id"])
    assert polyflake.decode(id_, layout).timestamp_ms == int(case["decoded_timestamp_ms"])


@pytest.mark.parametrize(
    "case", COMPOSE["min_max"], ids=v.ids(COMPOSE["min_max"], "layout", "timestamp_ms")
)
def test_min_max(case: dict[str, Any]) -> None:
    layout = v.layout(case["layout"])
    assert polyflake.min_id(layout, int(case["timestamp_ms"])) == int(case["min"])
    assert polyflake.max_id(layout, int(case["timestamp_ms"])) == int(case["max"])


def _run_error(case: dict[str, Any]) -> object:
    layout = v.layout(case["layout"])
    op = case["op"]
    if op == "compose":
        return polyflake.compose(
            layout,
            timestamp_ms=int(case["timestamp_ms"]),
            sequence=int(case["sequence"]),
            **v.nodes(case),
        )
    if op == "decode":
        return polyflake.decode(int(case["id"]), layout)
    if op == "min_id":
        return polyflake.min_id(layout, int(case["timestamp_ms"]))
    return polyflake.max_id(layout, int(case["timestamp_ms"]))


@pytest.mark.parametrize("case", ERRORS, ids=v.ids(ERRORS, "op", "layout", "error"))
def test_errors(case: dict[str, Any]) -> None:
    with pytest.raises(polyflake.PolyflakeError) as e:
        _run_error(case)
    assert e.value.code == case["error"]
    if case["error"] == "INVALID_ARGUMENT":
        assert isinstance(e.value, TypeError)
    else:
        assert isinstance(e.value, ValueError)
    if "field" in case:
        assert e.value.field == case["field"]  # type: ignore[attr-defined]
    if "kind" in case:
        assert e.value.kind == case["kind"]  # type: ignore[attr-defined]


def _text(encoding: str, value: str | bytes) -> str:
    return value.hex() if isinstance(value, bytes) else value


def _input(encoding: str, text: str) -> str | bytes:
    return bytes.fromhex(text) if encoding == "bytes" else text


@pytest.mark.parametrize("case", ENCODINGS["cases"], ids=lambda c: c["id"])
def test_encodings(case: dict[str, Any]) -> None:
    assert polyflake.ENCODINGS == ENCODINGS["encodings"]
    id_ = int(case["id"])
    for encoding in ENCODINGS["encodings"]:
        formatted = polyflake.format_id(id_, encoding)
        assert _text(encoding, formatted) == case[encoding]
        assert isinstance(formatted, bytes if encoding == "bytes" else str)
        assert polyflake.parse_id(_input(encoding, case[encoding]), encoding) == id_


@pytest.mark.parametrize(
    "case", ENCODINGS["parse_ok"], ids=v.ids(ENCODINGS["parse_ok"], "encoding", "text")
)
def test_parse_public_references(case: dict[str, Any]) -> None:
    assert polyflake.parse_id(_input(case["encoding"], case["text"]), case["encoding"]) == int(
        case["id"]
    )


@pytest.mark.parametrize(
    "case", ENCODINGS["parse_errors"], ids=v.ids(ENCODINGS["parse_errors"], "encoding", "text")
)
def test_parse_errors(case: dict[str, Any]) -> None:
    with pytest.raises(polyflake.InvalidEncodingError) as e:
        polyflake.parse_id(_input(case["encoding"], case["text"]), case["encoding"])
    assert e.value.code == case["error"]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s["name"])
def test_generator_scenarios(scenario: dict[str, Any]) -> None:
    clock = polyflake.ManualClock(int(scenario["start_ms"]))
    generator = polyflake.Generator(
        v.layout(scenario["layout"]),
        clock=clock,
        on_clock_backwards=scenario["policy"],
        max_backwards_ms=scenario.get("max_wait_ms"),
        **v.nodes(scenario),
    )
    for step in scenario["steps"]:
        op = step["op"]
        if op == "set":
            clock.set(int(step["ms"]))
        elif op == "clock":
            assert clock.now_ms == int(step["ms"])
        elif op == "next_ids":
            assert generator.next_ids(len(step["ids"])) == [int(i) for i in step["ids"]]
        elif "id" in step:
            assert generator.next_id() == int(step["id"])
        else:
            with pytest.raises(polyflake.PolyflakeError) as e:
                generator.next_id()
            assert e.value.code == step["error"]
