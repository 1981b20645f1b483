#!/usr/bin/env python3
"""A shipped `polyflake serve`, checked from outside as a client sees it.

    serve_check.py --port P                   one already running on 127.0.0.1:P
    serve_check.py --state DIR -- COMMAND...  starts `COMMAND serve` on port 0 with a
                                              local lease in DIR, checks it, stops it

The check: /readyz answers 200 within 30 s, and /v1/ids?count=5 five distinct decimal
strings in increasing order. A started service must also answer `serve --help` with its
flags, and exit 0 on SIGTERM. COMMAND may be a prefix (qemu-aarch64-static …/polyflake).
"""

from __future__ import annotations

import json
import os
import signal
import re
import subprocess
import sys
import time
import urllib.request


def check(port: int, alive=lambda: None) -> list[int]:
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as r:
                assert r.status == 200
                break
        except OSError:
            alive()
            assert time.monotonic() < deadline, "serve was not ready within 30 s"
            time.sleep(0.1)
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/ids?count=5", timeout=5) as r:
        ids = json.load(r)["ids"]
    assert len(ids) == 5 and all(isinstance(i, str) and i.isdigit() for i in ids), ids
    numbers = [int(i) for i in ids]
    assert numbers == sorted(set(numbers)), ids
    return numbers


def start_and_check(state: str, command: list[str]) -> None:
    help_text = subprocess.run([*command, "serve", "--help"], capture_output=True, text=True, check=True).stdout
    assert "--listen" in help_text and "--layout" in help_text, help_text
    env = {k: v for k, v in os.environ.items() if not k.startswith("POLYFLAKE_")}
    env["POLYFLAKE_STATE_DIR"] = state
    # Port 0: the kernel's choice, which serve's first line names (no port to race for).
    server = subprocess.Popen([*command, "serve", "--listen", "127.0.0.1:0"], env=env,
                              stderr=subprocess.PIPE, text=True)
    first = server.stderr.readline()
    serving = re.search(r"serving layout \S+ on http://127\.0\.0\.1:(\d+)", first)
    assert serving, first + server.stderr.read()
    port = int(serving.group(1))

    def alive() -> None:
        assert server.poll() is None, server.stderr.read()

    try:
        ids = check(port, alive)
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0, server.stderr.read()
    print(f"serve {command[-1]}: answered {len(ids)} IDs on port {port} and stopped on SIGTERM")


if __name__ == "__main__":
    if sys.argv[1] == "--port":
        ids = check(int(sys.argv[2]))
        print(f"serve on port {sys.argv[2]}: ready, {len(ids)} increasing IDs")
    else:
        assert sys.argv[1] == "--state" and sys.argv[3] == "--", sys.argv
        start_and_check(sys.argv[2], sys.argv[4:])
