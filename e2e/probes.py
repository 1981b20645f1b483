"""Looking at the run from outside: HTTP status and metrics of a replica,
etcd's JSON gateway and its record of who holds which node value, and a
poll with a deadline."""

from __future__ import annotations

import base64
import json
import time
import urllib.request
from typing import Any

from settings import LAYOUT, PREFIX


def wait_for(condition: Any, seconds: float, what: str) -> float:
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > seconds:
            raise SystemExit(f"e2e: {what}: not within {seconds} s")
        time.sleep(0.02)
    return time.monotonic() - start


def http_status(address: str, path: str, timeout: float = 0.3) -> int:
    try:
        with urllib.request.urlopen(f"http://{address}{path}", timeout=timeout) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return int(e.code)
    except OSError:
        return 0


def http_text(address: str, path: str) -> str:
    with urllib.request.urlopen(f"http://{address}{path}", timeout=2) as r:
        return str(r.read().decode())


def metric(text: str, sample: str) -> int:
    for line in text.splitlines():
        if line.startswith(sample + " "):
            return int(float(line.rsplit(" ", 1)[1]))
    raise KeyError(sample)


def etcd_call(port: int, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """A call to one member's JSON gateway, or None if it does not answer."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode()
    )
    try:
        with urllib.request.urlopen(request, timeout=0.3) as r:
            return dict(json.loads(r.read()))
    except (OSError, ValueError):
        return None


def etcd_holders(ports: list[int]) -> dict[int, int] | None:
    """Node number -> PID of the process holding its worker key, read from
    etcd itself (the first member of `ports` that answers a linearizable
    read), or None if none does."""
    key = f"{PREFIX}/{LAYOUT}/workers/"
    end = key[:-1] + chr(ord(key[-1]) + 1)
    body = {
        "key": base64.b64encode(key.encode()).decode(),
        "range_end": base64.b64encode(end.encode()).decode(),
    }
    for port in ports:
        answer = etcd_call(port, "/v3/kv/range", body)
        if answer is None or "header" not in answer:
            continue
        holders = {}
        for kv in answer.get("kvs", []):
            n = int(base64.b64decode(kv["key"]).decode().rsplit("/", 1)[1])
            value = base64.b64decode(kv.get("value", "")).decode()
            fields = dict(p.split("=", 1) for p in value.split() if "=" in p)
            holders[n] = int(fields.get("pid", "-1"))
        return holders
    return None
