"""Copies stdin to stdout, each line stamped with the time since the start
(`[mm:ss]`): .ci/run's log then shows how long each step took."""

import sys
import time

start = time.monotonic()
for line in sys.stdin.buffer:
    seconds = int(time.monotonic() - start)
    sys.stdout.buffer.write(b"[%02d:%02d] " % divmod(seconds, 60) + line)
    sys.stdout.buffer.flush()
