"""The report printed at the end of the run (and its figures as JSON)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from processes import Run
from settings import LAYOUT


def report(
    run: Run,
    timings: dict[str, Any],
    figures: dict[str, Any],
    failures: list[str],
    seconds: float,
    path: str | None,
) -> None:
    print("\n# e2e report")
    print(f"layout {LAYOUT}, TTL {run.settings.ttl_ms} ms, {seconds:.0f} s in all\n")
    print("## faults, in order")
    t0 = run.events[0]["t"]
    for e in run.events:
        print(f"  +{(e['t'] - t0) / 1000:6.1f} s  {e['event']}")
    print("\n## timings")
    for k, v in timings.items():
        print(f"  {k}: {v}")
    print("\n## figures")
    for k, v in figures.items():
        print(f"  {k}: {v}")
    print("\n## verdict")
    print(
        "  every check held"
        if not failures
        else "\n".join(f"  FAILED: {f}" for f in failures)
    )
    if path:
        Path(path).write_text(
            json.dumps(
                {
                    "timings": timings,
                    "figures": figures,
                    "failures": failures,
                    "seconds": round(seconds),
                },
                indent=1,
            )
        )
