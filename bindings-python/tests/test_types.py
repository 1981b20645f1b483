"""Wrong types, pickling, repr, JSON."""

from __future__ import annotations

import copy
import gc
import inspect
import json
import pickle
import sys

import polyflake
import pytest

ID = polyflake.compose(
    "twitter", timestamp_ms=1_700_000_000_123, sequence=7, datacenter_id=3, machine_id=17
)


@pytest.mark.parametrize(
    ("value", "exception"),
    [
        (-1, ValueError),
        (2**64, OverflowError),
        (2**100, OverflowError),
        (True, TypeError),
        (1.0, TypeError),
        ("123", TypeError),
        (None, TypeError),
    ],
)
def test_bad_ids_name_the_argument(value: object, exception: type[Exception]) -> None:
    for call in (
        lambda: polyflake.decode(value, "twitter"),  # type: ignore[arg-type]
        lambda: polyflake.format_id(value, "hex"),  # type: ignore[arg-type]
        lambda: polyflake.explain(value, "twitter"),  # type: ignore[arg-type]
    ):
        with pytest.raises(exception, match="id"):
            call()


@pytest.mark.parametrize("value", [-1, True, 1.5, "3"])
def test_bad_node_values_name_the_field(value: object) -> None:
    with pytest.raises((TypeError, ValueError), match="machine_id"):
        polyflake.compose(
            "twitter", timestamp_ms=1_700_000_000_000, sequence=0, datacenter_id=1, machine_id=value
        )  # type: ignore[arg-type]


def test_bad_timestamps_and_layouts() -> None:
    with pytest.raises(TypeError, match="timestamp_ms"):
        polyflake.min_id("twitter", 1.7e12)  # type: ignore[arg-type]
    with pytest.raises(polyflake.TimestampBeforeEpochError):
        polyflake.min_id("twitter", -5)
    with pytest.raises(TypeError, match="layout"):
        polyflake.decode(1, 42)  # type: ignore[arg-type]
    with pytest.raises(polyflake.InvalidArgumentError):
        polyflake.format_id(1, "base99")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="text"):
        polyflake.parse_id(123, "decimal")  # type: ignore[arg-type]


def test_parts_is_immutable_hashable_and_readable() -> None:
    parts = polyflake.decode(ID, "twitter")
    assert repr(parts) == (
        f'Parts(id={ID}, layout="twitter", timestamp_ms=1700000000123, '
        "datacenter_id=3, machine_id=17, sequence=7)"
    )
    with pytest.raises(AttributeError):
        parts.sequence = 1  # type: ignore[misc]
    with pytest.raises(AttributeError, match="no field 'shard_id'"):
        _ = parts.shard_id
    assert hash(parts) == hash(polyflake.decode(ID, polyflake.Layout.TWITTER))
    assert parts == polyflake.decode(ID, polyflake.Layout.TWITTER)
    assert parts != polyflake.decode(ID + 1, "twitter")
    assert len({parts, polyflake.decode(ID, "twitter")}) == 1
    assert parts._fields == ["timestamp_ms", "datacenter_id", "machine_id", "sequence"]
    assert parts.to_dict() == parts._asdict()


def test_parts_is_a_final_type_that_python_cannot_make_or_change() -> None:
    parts = polyflake.decode(ID, "twitter")
    assert type(parts) is polyflake.Parts
    assert polyflake.Parts.__module__ == "polyflake._polyflake"
    assert polyflake.Parts.__name__ == "Parts"
    with pytest.raises(TypeError):
        polyflake.Parts()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        type(parts).__new__(type(parts))
    with pytest.raises(TypeError):
        type("Sub", (polyflake.Parts,), {})
    with pytest.raises(TypeError):
        polyflake.Parts.sequence = 1  # type: ignore[misc,assignment]
    with pytest.raises(AttributeError):
        parts.extra = 1  # type: ignore[attr-defined]
    assert parts.time.isoformat() == "2023-11-14T22:13:20.123000+00:00"
    assert parts.layout == polyflake.Layout.TWITTER
    assert copy.copy(parts) == parts and copy.deepcopy(parts) == parts
    assert "machine_id" not in dir(parts) and "_asdict" in dir(parts)
    assert parts != ID and (parts == ID) is False


def test_decode_takes_its_arguments_by_position_or_by_keyword() -> None:
    parts = polyflake.decode(ID, "twitter")
    assert polyflake.decode(id=ID, layout="twitter") == parts
    assert polyflake.decode(ID, layout=polyflake.Layout.TWITTER) == parts
    assert str(inspect.signature(polyflake.decode)) == "(id, layout)"
    with pytest.raises(TypeError, match="layout"):
        polyflake.decode(ID)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        polyflake.decode()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        polyflake.decode(ID, "twitter", 3)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="extra"):
        polyflake.decode(ID, "twitter", extra=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        polyflake.decode(ID, id=ID)  # type: ignore[misc]
    with pytest.raises(polyflake.FieldOutOfRangeError):
        polyflake.decode(id=1 << 63, layout="twitter")


def test_parts_holds_its_layout_until_it_goes_and_no_collector_tracks_it() -> None:
    layout = polyflake.Layout.custom(0, 41, [("a", 5)], 12)
    id_ = polyflake.max_id(layout, 1_000)
    before = sys.getrefcount(layout)
    many = [polyflake.decode(id_, layout) for _ in range(1000)]
    assert sys.getrefcount(layout) == before + 1000
    # It holds an int and a Layout, which holds no Parts: no cycle is possible.
    assert not gc.is_tracked(many[0])
    del many
    assert sys.getrefcount(layout) == before


def test_pickling_round_trips() -> None:
    custom = polyflake.Layout.custom(
        epoch_ms=1000, time_bits=40, nodes={"region": 4, "worker": 6}, sequence_bits=10
    )
    for layout in (polyflake.Layout.SONYFLAKE, custom):
        assert pickle.loads(pickle.dumps(layout)) == layout
        id_ = polyflake.max_id(layout, layout.epoch_ms + 99_999)
        parts = polyflake.decode(id_, layout)
        again = pickle.loads(pickle.dumps(parts))
        assert again == parts and again.layout == layout
    err = pytest.raises(
        polyflake.FieldOutOfRangeError, polyflake.Generator, "snowflake", node_id=1024
    ).value
    again_err = pickle.loads(pickle.dumps(err))
    assert type(again_err) is polyflake.FieldOutOfRangeError and again_err.field == "node_id"


def test_layout_repr_and_custom_validation() -> None:
    assert repr(polyflake.Layout.DISCORD) == "Layout.DISCORD"
    custom = polyflake.Layout.custom(0, 41, [("a", 5)], 12)
    assert repr(custom).startswith("Layout.custom(epoch_ms=0, time_bits=41")
    assert eval(repr(custom), {"Layout": polyflake.Layout}) == custom
    with pytest.raises(TypeError):
        polyflake.Layout.custom(0, 41, nodes=[("a", "5")])  # type: ignore[list-item]
    with pytest.raises(polyflake.InvalidLayoutError, match="64"):
        polyflake.Layout.custom(0, 60, nodes=[("a", 5)])


def test_json_writes_ids_as_strings_and_refuses_bare_numbers() -> None:
    row = {"id": ID, "parent": {"id": 2**63 + 1}, "count": 3, "flag": True}
    text = polyflake.dumps(row)
    assert json.loads(text) == {
        "id": str(ID),
        "parent": {"id": str(2**63 + 1)},
        "count": 3,
        "flag": True,
    }
    assert polyflake.loads(text) == row
    with pytest.raises(ValueError, match="decimal string"):
        polyflake.loads('{"id": 12}')
    with pytest.raises(polyflake.InvalidEncodingError):
        polyflake.loads('{"id": "012"}')
    parts_json = json.loads(
        json.dumps(polyflake.decode(ID, "twitter"), default=polyflake.json_default)
    )
    assert parts_json["id"] == str(ID) and parts_json["machine_id"] == 17
    assert polyflake.dumps({"user_id": 5, "id": 6}, id_keys=("user_id",)) == (
        '{"user_id": "5", "id": 6}'
    )


def test_json_follows_one_rule_for_id_keys() -> None:
    # Written out by hand from the documented rule, not from is_id_key.
    row = {
        "ids": [1, 2],
        "user_id": 3,
        "orderIds": [4],
        "parentID": 5,
        "paid": 6,
        "uuid": 7,
        "items": [{"sku_id": 8, "qty": 9}],
        "flag_id": True,
    }
    assert json.loads(polyflake.dumps(row)) == {
        "ids": ["1", "2"],
        "user_id": "3",
        "orderIds": ["4"],
        "parentID": "5",
        "paid": 6,
        "uuid": 7,
        "items": [{"sku_id": "8", "qty": 9}],
        "flag_id": True,
    }
    del row["flag_id"]
    assert polyflake.loads(polyflake.dumps(row)) == row
    with pytest.raises(ValueError, match="'ids' must be a decimal string"):
        polyflake.loads('{"ids": ["1", 2]}')
    assert [polyflake.is_id_key(k) for k in ("id", "ids", "user_id", "paid", "Id")] == [
        True, True, True, False, False,
    ]  # fmt: skip
    with pytest.raises(TypeError, match="collection"):
        polyflake.dumps({}, id_keys="id")


def test_version_and_all() -> None:
    assert polyflake.__version__.count(".") == 2
    for name in polyflake.__all__:
        assert hasattr(polyflake, name), name


def test_bytes_encoding_takes_bytes_not_a_strs_utf8() -> None:
    raw = polyflake.format_id(12345, "bytes")
    assert polyflake.parse_id(raw, "bytes") == 12345
    with pytest.raises(TypeError, match="bytes"):
        polyflake.parse_id("abcdefgh", "bytes")
