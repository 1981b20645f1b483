"""`polyflake serve --grpc-listen` from a real gRPC client in another language:
Python's grpcio with stubs that grpcio-tools generates from
cli/proto/polyflake/v1/ids.proto, the standard health client and the
reflection client (scripts/test-grpc.sh runs it with pytest). The replica is
started here with a static identity, on free ports of 127.0.0.1, and stopped by
its PID."""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import urllib.request
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

STUBS = os.environ.get("POLYFLAKE_GRPC_STUBS")
assert STUBS, "POLYFLAKE_GRPC_STUBS: where scripts/test-grpc.sh generated the stubs"
sys.path.insert(0, STUBS)
from polyflake.v1 import ids_pb2, ids_pb2_grpc

NODE_ID = 37  # twitter: datacenter 1, machine 5


class Replica:
    def __init__(self, http: str, channel: grpc.Channel) -> None:
        self.http = http
        self.channel = channel
        self.ids = ids_pb2_grpc.IdsStub(channel)

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(f"{self.http}{path}", timeout=10) as answer:
            return json.loads(answer.read())


@pytest.fixture(scope="module")
def replica() -> Iterator[Replica]:
    cli = os.environ.get("POLYFLAKE_CLI")
    assert cli, (
        "POLYFLAKE_CLI names a polyflake built with serve (scripts/test-grpc.sh sets it)"
    )
    state = tempfile.mkdtemp(prefix="polyflake-grpc-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("POLYFLAKE_")}
    env.update(POLYFLAKE_NODE_ID=str(NODE_ID), POLYFLAKE_STATE_DIR=state)
    process = subprocess.Popen(
        [cli, "serve", "--listen", "127.0.0.1:0", "--grpc-listen", "127.0.0.1:0"],
        env=env, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        # Told port 0, each face prints the address the kernel gave it.
        lines = [process.stderr.readline() for _ in range(2)]
        http = re.search(r"on (http://127\.0\.0\.1:\d+)", lines[0])
        grpc_at = re.search(r"serving gRPC .* on (127\.0\.0\.1:\d+)", lines[1])
        assert http and grpc_at, lines
        # The rest of the log is drained, so that the replica never blocks on a full pipe.
        threading.Thread(target=process.stderr.read, daemon=True).start()
        channel = grpc.insecure_channel(grpc_at.group(1))
        grpc.channel_ready_future(channel).result(timeout=10)
        yield Replica(http.group(1), channel)
        channel.close()
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()


def trailer(error: grpc.RpcError, key: str) -> str | None:
    return dict(error.trailing_metadata() or ()).get(key)  # type: ignore[attr-defined]


def test_next_ids_are_fixed64_increasing_and_carry_the_identity(
    replica: Replica,
) -> None:
    ids = list(replica.ids.NextIds(ids_pb2.NextIdsRequest(count=1000)).ids)
    assert len(ids) == 1000
    assert all(a < b for a, b in itertools.pairwise(ids))
    # Decoded by the HTTP face, an independent path through the same replica.
    http = replica.get(f"/v1/ids/{ids[0]}")
    assert (http["datacenter_id"], http["machine_id"]) == (1, 5)
    parts = replica.ids.Decode(ids_pb2.DecodeRequest(id=ids[-1]))
    assert parts.id == ids[-1] and parts.layout == "twitter"
    assert [(n.name, n.value) for n in parts.nodes] == [
        ("datacenter_id", 1),
        ("machine_id", 5),
    ]
    # proto3's unset count asks for one ID.
    assert len(replica.ids.NextIds(ids_pb2.NextIdsRequest()).ids) == 1


def test_the_two_faces_share_one_generator(replica: Replica) -> None:
    taken: list[int] = []

    def over_http() -> None:
        for _ in range(20):
            taken.extend(int(i) for i in replica.get("/v1/ids?count=500")["ids"])

    thread = threading.Thread(target=over_http)
    thread.start()
    for _ in range(20):
        taken.extend(replica.ids.NextIds(ids_pb2.NextIdsRequest(count=500)).ids)
    thread.join()
    assert len(taken) == 20_000
    assert len(set(taken)) == len(taken), "no ID twice across HTTP and gRPC"


def test_a_streamed_batch_comes_in_messages_of_10000(replica: Replica) -> None:
    messages = [
        list(m.ids) for m in replica.ids.StreamIds(ids_pb2.NextIdsRequest(count=25_000))
    ]
    assert [len(m) for m in messages] == [10_000, 10_000, 5_000]
    every = [i for m in messages for i in m]
    assert all(a < b for a, b in itertools.pairwise(every))


def test_an_id_past_bit_63_travels_exactly(replica: Replica) -> None:
    # instagram's 41-bit time field reaches bit 63 from 2080 on.
    at = 1_314_220_021_721 + 2**40 + 12_345
    composed = replica.ids.Compose(
        ids_pb2.ComposeRequest(
            layout="instagram", timestamp_ms=at, sequence=7,
            nodes=[ids_pb2.NodeValue(name="shard_id", value=1234)],
        )
    )  # fmt: skip
    assert composed.id >= 2**63
    assert composed.id == (2**40 + 12_345) << 23 | 1234 << 10 | 7
    back = replica.ids.Decode(ids_pb2.DecodeRequest(id=composed.id, layout="instagram"))
    assert (back.timestamp_ms, back.sequence) == (at, 7)
    assert [(n.name, n.value) for n in back.nodes] == [("shard_id", 1234)]


@pytest.mark.parametrize(
    ("call", "status", "code"),
    [
        (lambda ids: ids.NextIds(ids_pb2.NextIdsRequest(count=100_001)),
         grpc.StatusCode.OUT_OF_RANGE, "FIELD_OUT_OF_RANGE"),
        (lambda ids: list(ids.StreamIds(ids_pb2.NextIdsRequest(count=10_000_001))),
         grpc.StatusCode.OUT_OF_RANGE, "FIELD_OUT_OF_RANGE"),
        (lambda ids: ids.Decode(ids_pb2.DecodeRequest(id=1, layout="nope")),
         grpc.StatusCode.INVALID_ARGUMENT, "INVALID_LAYOUT"),
        (lambda ids: ids.Compose(ids_pb2.ComposeRequest(timestamp_ms=1_700_000_000_000)),
         grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT"),
        (lambda ids: ids.Compose(ids_pb2.ComposeRequest(
            timestamp_ms=0, nodes=[ids_pb2.NodeValue(name="datacenter_id", value=1),
                                   ids_pb2.NodeValue(name="machine_id", value=2)])),
         grpc.StatusCode.OUT_OF_RANGE, "TIMESTAMP_BEFORE_EPOCH"),
        (lambda ids: ids.Compose(ids_pb2.ComposeRequest(
            timestamp_ms=1_700_000_000_000, nodes=[ids_pb2.NodeValue(name="datacenter_id", value=32),
                                                   ids_pb2.NodeValue(name="machine_id", value=2)])),
         grpc.StatusCode.OUT_OF_RANGE, "FIELD_OUT_OF_RANGE"),
    ],
)  # fmt: skip
def test_bad_requests_are_coded_statuses(
    replica: Replica, call: Any, status: Any, code: str
) -> None:
    with pytest.raises(grpc.RpcError) as info:
        call(replica.ids)
    assert info.value.code() == status  # type: ignore[attr-defined]
    assert trailer(info.value, "polyflake-code") == code


def test_health_says_serving_for_the_server_and_the_service(replica: Replica) -> None:
    health = health_pb2_grpc.HealthStub(replica.channel)
    for service in ("", "polyflake.v1.Ids"):
        answer = health.Check(health_pb2.HealthCheckRequest(service=service))
        assert answer.status == health_pb2.HealthCheckResponse.SERVING, service
    with pytest.raises(grpc.RpcError) as info:
        health.Check(health_pb2.HealthCheckRequest(service="no.such.Service"))
    assert info.value.code() == grpc.StatusCode.NOT_FOUND  # type: ignore[attr-defined]


def test_reflection_lists_and_describes_the_service(replica: Replica) -> None:
    from google.protobuf import descriptor_pb2

    # grpcio-reflection's client speaks v1alpha; the server answers v1 too (grpcurl's first choice).
    reflection = reflection_pb2_grpc.ServerReflectionStub(replica.channel)
    requests = [
        reflection_pb2.ServerReflectionRequest(list_services=""),
        reflection_pb2.ServerReflectionRequest(
            file_containing_symbol="polyflake.v1.Ids"
        ),
    ]
    answers = list(reflection.ServerReflectionInfo(iter(requests)))
    services = {s.name for s in answers[0].list_services_response.service}
    assert {"polyflake.v1.Ids", "grpc.health.v1.Health"} <= services, services
    file = descriptor_pb2.FileDescriptorProto.FromString(
        answers[1].file_descriptor_response.file_descriptor_proto[0]
    )
    assert file.package == "polyflake.v1"
    methods = {m.name for m in file.service[0].method}
    assert methods == {"NextIds", "StreamIds", "Decode", "Compose"}
    ids_field = next(m for m in file.message_type if m.name == "NextIdsResponse").field[
        0
    ]
    assert ids_field.type == descriptor_pb2.FieldDescriptorProto.TYPE_FIXED64
