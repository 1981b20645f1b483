"""Loads the golden vectors shared by every language (tests/vectors/*.json)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import polyflake

VECTORS = Path(__file__).resolve().parents[2] / "tests" / "vectors"


@cache
def load(name: str) -> Any:
    return json.loads((VECTORS / name).read_text())


def build_spec(spec: dict[str, Any]) -> polyflake.Layout:
    return polyflake.Layout.custom(
        epoch_ms=int(spec["epoch_ms"]),
        time_bits=spec["time_bits"],
        nodes=[(n["name"], n["bits"]) for n in spec["nodes"]],
        sequence_bits=spec["sequence_bits"],
        tick_ms=spec["tick_ms"],
        sequence_above_nodes=spec["sequence_above_nodes"],
    )


def layout(name: str) -> polyflake.Layout:
    if name in polyflake.Layout.PRESETS:
        return polyflake.Layout.preset(name)
    return build_spec(load("layouts.json")["custom"][name])


def nodes(case: dict[str, Any]) -> dict[str, int]:
    return {k: int(v) for k, v in case["nodes"].items()}


def ids(cases: list[dict[str, Any]], *keys: str) -> list[str]:
    return [":".join(str(c.get(k, "")) for k in keys)[:60] for c in cases]
