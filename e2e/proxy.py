"""A TCP proxy between one replica and each etcd member that the run can cut:
the partitions a network makes, which pausing etcd is not (etcd stays healthy
for everyone else). A few lines of our own, as in the etcd crate's partition
tests (`etcd/tests/lease_support/proxy.rs`), rather than toxiproxy: the
faults are four, and a Go service more to build and drive would be the larger
part of the run.

- "blackhole": bytes in either direction vanish; connections stay open and new
  ones are accepted, so the replica waits on its own timeouts.
- "reset": every connection is aborted (RST), and new ones too.
- "latency": every chunk is held `latency_s` before it goes on, both ways.
- "oneway": requests reach etcd; its answers vanish.
- "none": bytes pass."""

from __future__ import annotations

import collections
import socket
import struct
import threading
import time

FAULTS = ("none", "blackhole", "reset", "latency", "oneway")


def abort(sock: socket.socket) -> None:
    """Wakes this side's reader and makes the close a reset (SO_LINGER 0),
    as a middlebox that drops the flow does."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.shutdown(socket.SHUT_RD)
    except OSError:
        pass


class Pair:
    """One connection through the proxy: the replica's socket and etcd's, a
    reader and a writer each way. The last of the four threads to end closes
    both sockets."""

    def __init__(
        self, proxy: Proxy, client: socket.socket, server: socket.socket
    ) -> None:
        self.proxy = proxy
        self.sockets = (client, server)
        self.lock = threading.Lock()
        self.running = 4
        for src, dst, upstream in ((client, server, True), (server, client, False)):
            queue: collections.deque[tuple[float, bytes | None]] = collections.deque()
            ready = threading.Condition()
            threading.Thread(
                target=self.read, args=(src, queue, ready, upstream), daemon=True
            ).start()
            threading.Thread(
                target=self.write, args=(dst, queue, ready), daemon=True
            ).start()

    def read(
        self,
        src: socket.socket,
        queue: collections.deque[tuple[float, bytes | None]],
        ready: threading.Condition,
        upstream: bool,
    ) -> None:
        try:
            while True:
                try:
                    data = src.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    break
                fault = self.proxy.fault
                if fault == "blackhole" or (fault == "oneway" and not upstream):
                    continue
                delay = self.proxy.latency_s if fault == "latency" else 0.0
                with ready:
                    queue.append((time.monotonic() + delay, data))
                    ready.notify()
        finally:
            with ready:
                queue.append((0.0, None))
                ready.notify()
            self.end()

    def write(
        self,
        dst: socket.socket,
        queue: collections.deque[tuple[float, bytes | None]],
        ready: threading.Condition,
    ) -> None:
        try:
            while True:
                with ready:
                    while not queue:
                        ready.wait()
                    due, data = queue.popleft()
                if data is None:
                    break
                time.sleep(max(0.0, due - time.monotonic()))
                try:
                    dst.sendall(data)
                except OSError:
                    break
        finally:
            self.end()

    def end(self) -> None:
        """A side ended: the whole connection is aborted."""
        for sock in self.sockets:
            abort(sock)
        with self.lock:
            self.running -= 1
            last = self.running == 0
        if last:
            for sock in self.sockets:
                sock.close()
            self.proxy.forget(self)


class Proxy:
    """Listens on a free port of 127.0.0.1 for each upstream port and forwards
    there; `set` applies a fault to every connection from then on."""

    def __init__(self, upstreams: list[int]) -> None:
        self.fault = "none"
        self.latency_s = 0.0
        self.lock = threading.Lock()
        self.pairs: set[Pair] = set()
        self.listeners: list[socket.socket] = []
        for port in upstreams:
            listener = socket.create_server(("127.0.0.1", 0))
            self.listeners.append(listener)
            threading.Thread(
                target=self.accept, args=(listener, port), daemon=True
            ).start()

    @property
    def endpoints(self) -> list[str]:
        return [f"http://127.0.0.1:{s.getsockname()[1]}" for s in self.listeners]

    def set(self, fault: str, latency_ms: int = 0) -> None:
        """`fault` from now on; "reset" also aborts the open connections."""
        if fault not in FAULTS:
            raise ValueError(fault)
        self.latency_s = latency_ms / 1000
        self.fault = fault
        if fault == "reset":
            with self.lock:
                pairs = list(self.pairs)
            for pair in pairs:
                for sock in pair.sockets:
                    abort(sock)

    def accept(self, listener: socket.socket, port: int) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # closed
            if self.fault == "reset":
                abort(client)
                client.close()
                continue
            try:
                server = socket.create_connection(("127.0.0.1", port), timeout=2)
            except OSError:
                abort(client)
                client.close()
                continue
            server.settimeout(None)
            for sock in (client, server):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.lock:
                self.pairs.add(Pair(self, client, server))

    def forget(self, pair: Pair) -> None:
        with self.lock:
            self.pairs.discard(pair)

    def close(self) -> None:
        for listener in self.listeners:
            try:
                listener.shutdown(socket.SHUT_RDWR)  # wakes accept()
            except OSError:
                pass
            listener.close()
        self.set("reset")
