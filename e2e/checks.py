"""Every assertion of the run, on every ID, every row and etcd's own record
of who held which value: the failures, and the figures for the report."""

from __future__ import annotations

import bisect
import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polyflake
import psycopg
from processes import Run
from settings import LAYOUT, NODE_FIELDS
from watch import Watch


def load(path: Path) -> list[dict[str, Any]]:
    records = []
    for line in path.read_text().splitlines():
        if line.strip():
            records.append(json.loads(line))
    return records


@dataclass
class Verdict:
    """What the checks found: a failure for each assertion that does not
    hold (none when all do), and the figures for the report."""

    failures: list[str] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)

    def fail(self, why: str) -> None:
        self.failures.append(why)


def id_time(id: int) -> int:
    """The Unix millisecond an ID of the run's layout was issued in."""
    return polyflake.decode(id, LAYOUT).timestamp_ms


def node_value(parts: polyflake.Parts) -> int:
    """The node value an ID was issued under: its node fields read as one
    number, most significant first (as etcd's worker keys number them)."""
    node = 0
    for name, bits in NODE_FIELDS:
        node = (node << bits) | getattr(parts, name)
    return node


def check_unique(
    ok: list[dict[str, Any]], records: list[dict[str, Any]], v: Verdict
) -> None:
    """No ID twice, no primary-key violation; refusals counted by replica and code."""
    ids = [int(i) for r in ok for i in r["ids"]]
    v.figures["IDs received"] = len(ids)
    v.figures["duplicate IDs"] = len(ids) - len(set(ids))
    if v.figures["duplicate IDs"]:
        v.fail(f"{v.figures['duplicate IDs']} duplicate IDs")
    violations = [r for r in ok if r.get("db_error")]
    v.figures["primary-key violations"] = len(violations)
    if violations:
        v.fail(
            f"{len(violations)} batches hit a primary-key violation: {violations[0]['db_error']}"
        )
    refusals: dict[str, int] = {}
    for r in records:
        if r.get("status") != 200:
            key = f"{r['replica']} {r.get('status')} {r.get('code')}"
            refusals[key] = refusals.get(key, 0) + 1
    v.figures["refused or unanswered requests"] = refusals


def check_holders(run: Run, watch: Watch, ok: list[dict[str, Any]], v: Verdict) -> None:
    """Every ID was issued under a node value that etcd's own record showed
    its issuer holding at the ID's time."""
    pids = {i.process.pid: i.name for i in run.instances}
    pids[run.embedded_pid] = "embedded"
    pids.update((n.process.pid, n.name) for n in run.newcomers)
    times = [t for t, _ in watch.samples]
    unheld = 0
    example = ""
    for r in ok:
        source = r["replica"]
        checked: set[tuple[int, int]] = set()
        for text in r["ids"]:
            id = int(text)
            parts = polyflake.decode(id, LAYOUT)
            t, n = parts.timestamp_ms, node_value(parts)
            if (t, n) in checked:
                continue
            checked.add((t, n))
            k = bisect.bisect_right(times, t)
            near = [watch.samples[j][1] for j in (k - 1, k) if 0 <= j < len(times)]
            if not any(pids.get(h.get(n, -1)) == source for h in near):
                unheld += 1
                example = (
                    example
                    or f"{source} issued {id} (node {n}, {t} ms) while etcd showed {near}"
                )
    v.figures["IDs under a node value etcd did not show their issuer holding"] = unheld
    if unheld:
        v.fail(f"{unheld} (time, node) pairs not held by their issuer: {example}")


def check_increasing(ok: list[dict[str, Any]], v: Verdict) -> None:
    """Per replica, strictly increasing: an answer received before another
    was asked for holds only smaller IDs."""
    decreasing = 0
    for name in {r["replica"] for r in ok}:
        mine = [r for r in ok if r["replica"] == name]
        by_received = sorted(mine, key=lambda r: r["received"])
        highest, j = -1, 0
        for r in sorted(mine, key=lambda r: r["sent"]):
            while j < len(by_received) and by_received[j]["received"] < r["sent"]:
                highest = max(highest, int(by_received[j]["ids"][-1]))
                j += 1
            batch = [int(i) for i in r["ids"]]
            if batch[0] <= highest or any(a >= b for a, b in itertools.pairwise(batch)):
                decreasing += 1
    v.figures["answers not above their replica's earlier answers"] = decreasing
    if decreasing:
        v.fail(
            f"{decreasing} answers not strictly above earlier answers of their replica"
        )


def check_faults_seen(
    run: Run,
    ok: list[dict[str, Any]],
    records: list[dict[str, Any]],
    timings: dict[str, Any],
    v: Verdict,
) -> None:
    """Each fault was seen: the stepped clock refused on r3 alone, the
    others answered meanwhile, and every timing was observed."""
    step = next(e for e in run.events if e["event"].startswith("r3's wall clock"))
    restored = next(e for e in run.events if e["event"] == "r3's clock restored")
    # A newcomer may refuse so too, while its clock is behind the mark of
    # the value it took (a holder that stopped on a slow clock leaves it a
    # lease ahead): counted, not a fault.
    newcomers = {n.name for n in run.newcomers}
    clock_refusals = [r for r in records if r.get("code") == "CLOCK_MOVED_BACKWARDS"]
    waited = [r for r in clock_refusals if r["replica"] in newcomers]
    v.figures["newcomers' refusals while behind their value's mark"] = len(waited)
    stepped = {r["replica"] for r in clock_refusals if r["replica"] not in newcomers}
    if stepped != {"r3"}:
        v.fail(f"the clock step was refused by {sorted(stepped)}")
    if timings["r3 clock step: CLOCK_MOVED_BACKWARDS refusals"] < 1:
        v.fail("r3's metrics counted no clock-backwards refusal")
    others = {
        r["replica"]
        for r in ok
        if step["t"] <= r["sent"] and r["received"] <= restored["t"]
    }
    if not {"r1", "r2"} <= others:
        v.fail(f"only {others} answered while r3's clock was stepped")
    missing = [k for k, t in timings.items() if t is None]
    if missing:
        v.fail(f"not observed: {missing}")


def check_frozen(run: Run, ok: list[dict[str, Any]], v: Verdict) -> None:
    """While etcd was frozen past the TTL, nobody issued."""
    frozen = next(e for e in run.events if e["event"] == "SIGCONT etcd")
    lapse_from = frozen["frozen_from"] + run.settings.ttl_ms
    during: dict[str, list[int]] = {}
    for r in ok:
        for text in r["ids"]:
            t = id_time(int(text))
            if lapse_from <= t < frozen["t"]:
                during.setdefault(r["replica"], []).append(t - frozen["frozen_from"])
    v.figures["IDs issued while every lease had lapsed (etcd frozen)"] = sum(
        map(len, during.values())
    )
    if during:
        v.fail(
            "IDs issued while etcd was frozen past the TTL: "
            + ", ".join(
                f"{k} {len(t)} at +{min(t)}..+{max(t)} ms" for k, t in during.items()
            )
        )


def check_partitions(
    run: Run, watch: Watch, ok: list[dict[str, Any]], v: Verdict
) -> None:
    """Each partition: r2 issued nothing from its deadline (TTL minus margin
    after the cut at the latest) until healed; the newcomer got r2's value
    only once etcd could have expired it (always, when etcd heard nothing
    from r2), and its IDs lie after and above r2's under that value; r2
    answered again after healing; with the leader killed, every other holder
    kept its value."""
    s = run.settings
    # IDs' instants come from each issuer's clock: a little slack for the
    # clocks' anchoring and for a 100 ms sample of etcd.
    slack = 400
    for c in run.cuts:
        r2 = [
            (id_time(int(i)), int(i))
            for r in ok
            if r["replica"] == "r2"
            for i in r["ids"]
        ]
        deadline = c.start + s.ttl_ms - s.margin_ms
        late = [t - c.start for t, _ in r2 if deadline < t < c.healed]
        v.figures[f"{c.label}: r2's last ID after the cut (ms)"] = max(
            (t - c.start for t, _ in r2 if c.start <= t < c.healed), default=None
        )
        if late:
            v.fail(
                f"{c.label}: r2 issued {len(late)} IDs past its deadline, up to +{max(late)} ms"
            )
        if not any(r["replica"] == "r2" and r["sent"] >= c.healed for r in ok):
            v.fail(f"{c.label}: r2 never answered after healing")
        lines = load(c.newcomer.out)
        claimed = lines[0].get("claimed") if lines else None
        mine = [
            (id_time(int(i)), int(i))
            for r in ok
            if r["replica"] == c.newcomer.name
            for i in r["ids"]
        ]
        expires = c.fault in ("blackhole", "reset")
        if claimed is None:
            v.figures[f"{c.label}: newcomer"] = (
                f"refused r2's value {lines[0]['refusals'] if lines else '?'}"
            )
            if expires:
                v.fail(
                    f"{c.label}: the newcomer never got r2's value, though etcd heard nothing from r2"
                )
            continue
        v.figures[f"{c.label}: newcomer got r2's value after the cut (ms)"] = (
            claimed - c.start
        )
        if claimed + s.keep_alive_ms + slack < c.start + s.ttl_ms:
            v.fail(
                f"{c.label}: the newcomer got r2's value {claimed - c.start} ms after the cut, before etcd could expire it"
            )
        if not mine:
            v.fail(f"{c.label}: the newcomer got r2's value but issued nothing")
            continue
        under = [
            (t, i)
            for t, i in r2
            if t < c.healed and node_value(polyflake.decode(i, LAYOUT)) == c.node
        ]
        if under and (
            max(under)[0] >= min(mine)[0]
            or max(i for _, i in under) >= min(i for _, i in mine)
        ):
            v.fail(
                f"{c.label}: the newcomer's first ID is not after and above r2's last under value {c.node}"
            )
        if c.leader_killed is not None:
            before = c.others
            after = {
                p: n
                for p, n in before.items()
                for t, h in watch.samples
                if c.healed <= t <= c.end and h.get(n) == p
            }
            lost = {p: n for p, n in before.items() if p not in after}
            v.figures[
                f"{c.label}: holders that kept their value through the election"
            ] = f"{len(after)} of {len(before)}"
            if lost:
                v.fail(f"{c.label}: holders lost their values in the election: {lost}")


def check_rates(run: Run, ok: list[dict[str, Any]], v: Verdict) -> None:
    """r4 at each clock rate, on the real clock of this run: within the bound
    (slow by less than the margin's share of the TTL, or fast) it answers
    nothing it was asked for after its deadline, TTL - margin of its own
    clock after the cut, and answers again once healed; beyond the bound it
    found its clock too slow and issued nothing from then on. Either way
    every answer with IDs came back before the newcomer had r4's value, and
    the newcomer's IDs lie above r4's; no ID twice with anyone."""
    s = run.settings
    everyone = {int(i) for r in ok for i in r["ids"]}
    for rated in run.rated:
        label = f"clock at x{rated.rate}"
        answered = [a for a in rated.answers if a["status"] == 200]
        ids = [int(i) for a in answered for i in a["ids"]]
        twice = len(ids) - len(set(ids)) + len(everyone & set(ids))
        v.figures[f"{label}: r4's IDs, issued twice"] = [len(ids), twice]
        if twice or not ids:
            v.fail(f"{label}: r4 issued {len(ids)} IDs, {twice} of them twice")
        if 1 - rated.rate > s.margin_ms / s.ttl_ms and rated.refused is None:
            v.fail(f"{label}: r4 never found its clock too slow")
        if rated.refused is not None:
            late = [a for a in answered if a["sent"] > rated.refused]
            if late:
                v.fail(
                    f"{label}: r4 answered {len(late)} requests after it refused clock_gap"
                )
        else:
            # Its last renewal before the cut was sent by the cut at the
            # latest; its deadline is TTL - margin later on its own clock.
            deadline = rated.cut + (s.ttl_ms - s.margin_ms) / rated.rate
            late = [a for a in answered if deadline < a["sent"] < rated.healed]
            last = max(
                (
                    a["received"]
                    for a in answered
                    if rated.cut <= a["sent"] < rated.healed
                ),
                default=None,
            )
            v.figures[
                f"{label}: r4's last answer after the cut (ms); its deadline (ms)"
            ] = [
                None if last is None else last - rated.cut,
                round(deadline - rated.cut),
            ]
            if late:
                v.fail(
                    f"{label}: r4 answered {len(late)} requests sent after its deadline"
                )
            if not any(a["sent"] >= rated.healed for a in answered):
                v.fail(f"{label}: r4 never answered after healing")
        assert rated.newcomer
        lines = load(rated.newcomer.out)
        claimed = lines[0].get("claimed") if lines else None
        if claimed is None:
            v.fail(f"{label}: the newcomer never got r4's value")
            continue
        v.figures[f"{label}: newcomer got r4's value after the cut (ms)"] = (
            claimed - rated.cut
        )
        before = [a for a in answered if a["sent"] < rated.healed]
        overlapping = [a for a in before if a["received"] >= claimed]
        if overlapping:
            v.fail(
                f"{label}: r4 answered {len(overlapping)} requests after the newcomer had its value,"
                f" the last {overlapping[-1]['received'] - claimed} ms after"
            )
        mine = [
            int(i) for r in ok if r["replica"] == rated.newcomer.name for i in r["ids"]
        ]
        theirs = [int(i) for a in before for i in a["ids"]]
        if mine and theirs and min(mine) <= max(theirs):
            v.fail(f"{label}: the newcomer's IDs do not all lie above r4's")


def check_database(run: Run, ok: list[dict[str, Any]], v: Verdict) -> None:
    """Every ID is a row; time ranges on the key alone agree with the IDs'
    times and with created_at; keyset pagination visits every row once."""
    ids = [int(i) for r in ok for i in r["ids"]]
    layout = polyflake.Layout(LAYOUT)
    # SQL cannot call polyflake: the time field's place, from the layout.
    time_shift = 64 - layout.unused_bits - layout.time_bits
    epoch = layout.epoch_ms
    with psycopg.connect(run.dsn) as db:
        rows = db.execute("SELECT count(*) FROM orders").fetchone()[0]
        inserted = sum(r.get("inserted", 0) for r in ok)
        v.figures["rows"] = rows
        if rows != inserted or rows != len(ids):
            v.fail(f"{rows} rows, {inserted} inserted, {len(ids)} IDs received")
        t_first = min(map(id_time, ids))
        t_last = max(map(id_time, ids))
        t0 = t_first + (t_last - t_first) // 4
        t1 = t_first + (t_last - t_first) * 3 // 4
        lo, hi = polyflake.min_id(LAYOUT, t0), polyflake.max_id(LAYOUT, t1)
        by_key = {
            x
            for (x,) in db.execute(
                "SELECT id FROM orders WHERE id BETWEEN %s AND %s", (lo, hi)
            )
        }
        by_time = {
            x
            for (x,) in db.execute(
                "SELECT id FROM orders WHERE (id >> %s) + %s BETWEEN %s AND %s",
                (time_shift, epoch, t0, t1),
            )
        }
        v.figures["rows in the middle half, by key range"] = len(by_key)
        if by_key != by_time or not by_key:
            v.fail(
                f"the key range holds {len(by_key)} rows, the IDs' times {len(by_time)}"
            )
        tolerance_ms = 2000
        lag = db.execute(
            "SELECT min(extract(epoch from created_at) * 1000 - ((id >> %s) + %s)),"
            " max(extract(epoch from created_at) * 1000 - ((id >> %s) + %s)) FROM orders",
            (time_shift, epoch, time_shift, epoch),
        ).fetchone()
        v.figures["created_at minus the ID's time, ms (min, max)"] = [
            round(float(x)) for x in lag
        ]
        if not (-50 <= float(lag[0]) and float(lag[1]) <= tolerance_ms):
            v.fail(
                f"created_at lies {lag} ms from the IDs' times, beyond the tolerance"
            )
        between = (
            "SELECT id FROM orders WHERE created_at BETWEEN to_timestamp(%s / 1000.0)"
            " AND to_timestamp(%s / 1000.0)"
        )
        inner = {x for (x,) in db.execute(between, (t0 + tolerance_ms, t1))}
        outer = {x for (x,) in db.execute(between, (t0 - 50, t1 + tolerance_ms))}
        if not (inner <= by_key <= outer):
            v.fail("the key range disagrees with created_at beyond the tolerance")
        seen, last = 0, -(2**63)
        while True:
            page = [
                x
                for (x,) in db.execute(
                    "SELECT id FROM orders WHERE id > %s ORDER BY id LIMIT 10000",
                    (last,),
                )
            ]
            if not page:
                break
            if page[0] <= last or any(a >= b for a, b in itertools.pairwise(page)):
                v.fail("keyset pagination went backwards")
                break
            seen += len(page)
            last = page[-1]
        v.figures["keyset pagination: rows visited"] = seen
        if seen != rows:
            v.fail(f"keyset pagination visited {seen} of {rows} rows")


def check(
    run: Run, watch: Watch, records: list[dict[str, Any]], timings: dict[str, Any]
) -> tuple[list[str], dict[str, Any]]:
    """Every assertion of the run: a list of failures (empty when all hold)
    and the figures for the report."""
    v = Verdict()
    ok = [r for r in records if r.get("status") == 200]
    check_unique(ok, records, v)
    check_holders(run, watch, ok, v)
    check_increasing(ok, v)
    check_faults_seen(run, ok, records, timings, v)
    check_frozen(run, ok, v)
    check_partitions(run, watch, ok, v)
    check_rates(run, ok, v)
    check_database(run, ok, v)
    return v.failures, v.figures
