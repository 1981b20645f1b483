"""polyflake.pydantic against real pydantic v2 and FastAPI: IDs are exact ints
in Python, decimal strings in JSON and in the OpenAPI schema, and bad input is
a validation error with the core's code."""

from __future__ import annotations

import importlib.metadata
import json

import polyflake
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from polyflake.pydantic import SNOWFLAKE_ID_PATTERN, SnowflakeId
from pydantic import BaseModel, TypeAdapter, ValidationError

MAX = 2**64 - 1
# Past 2**53: a double would round it (9007199254740993 -> ...992).
PAST_DOUBLE = 2**53 + 1


class Order(BaseModel):
    id: SnowflakeId
    items: list[SnowflakeId] = []
    parent: SnowflakeId | None = None


def test_ints_and_decimal_strings_validate_to_exact_ints() -> None:
    for value in (0, 1, PAST_DOUBLE, MAX):
        for given in (value, str(value)):
            order = Order(id=given, items=[given], parent=given)
            assert order.id == value and type(order.id) is int
            assert order.items == [value] and order.parent == value


def test_python_mode_gives_ints_and_json_mode_strings() -> None:
    order = Order(id=MAX, items=[PAST_DOUBLE, 7])
    assert order.model_dump() == {"id": MAX, "items": [PAST_DOUBLE, 7], "parent": None}
    text = order.model_dump_json()
    assert text == f'{{"id":"{MAX}","items":["{PAST_DOUBLE}","7"],"parent":null}}'
    body = json.loads(text)
    assert isinstance(body["id"], str) and all(isinstance(i, str) for i in body["items"])
    assert Order.model_validate_json(text) == order
    assert order.model_dump(mode="json")["id"] == str(MAX)


@pytest.mark.parametrize(
    "bad, code",
    [
        (-1, "snowflake_id"),
        (MAX + 1, "snowflake_id"),
        ("18446744073709551616", "snowflake_id"),
        ("12a", "snowflake_id"),
        ("", "snowflake_id"),
        (" 12", "snowflake_id"),
        ("-5", "snowflake_id"),
        (1.5, "snowflake_id_type"),
        (12.0, "snowflake_id_type"),
        (True, "snowflake_id_type"),
        (None, "snowflake_id_type"),
        ([1], "snowflake_id_type"),
        (b"12", "snowflake_id_type"),
    ],
)
def test_bad_input_is_a_validation_error_with_a_code(bad: object, code: str) -> None:
    with pytest.raises(ValidationError) as caught:
        Order(id=bad)
    (error,) = caught.value.errors()
    assert error["type"] == code, error
    if code == "snowflake_id":
        # The core's contract code travels in the error's context.
        assert error["ctx"]["code"] in {"FIELD_OUT_OF_RANGE", "INVALID_ENCODING"}, error


def test_the_json_schema_is_a_string_of_digits() -> None:
    schema = Order.model_json_schema()
    assert schema["properties"]["id"]["type"] == "string"
    assert schema["properties"]["id"]["pattern"] == SNOWFLAKE_ID_PATTERN
    assert schema["properties"]["items"]["items"]["type"] == "string"
    for mode in ("validation", "serialization"):
        alone = TypeAdapter(SnowflakeId).json_schema(mode=mode)
        assert alone["type"] == "string" and alone["pattern"] == SNOWFLAKE_ID_PATTERN


def test_a_fastapi_round_trip_keeps_every_bit() -> None:
    generator = polyflake.Generator("twitter", datacenter_id=0, machine_id=5)
    app = FastAPI()
    stored: dict[int, Order] = {}

    @app.post("/orders")
    def create(order: Order) -> Order:
        minted = Order(id=generator.next_id(), items=order.items, parent=order.id)
        stored[minted.id] = minted
        return minted

    @app.get("/orders/{order_id}")
    def read(order_id: SnowflakeId) -> Order:
        return stored[order_id]

    client = TestClient(app)
    # The client sends one ID as a string and one as a JSON number.
    response = client.post(
        "/orders",
        content=f'{{"id":"{MAX}","items":[{PAST_DOUBLE}]}}'.encode(),
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert isinstance(body["id"], str) and isinstance(body["parent"], str)
    minted = int(body["id"])
    assert minted > 2**53, "a Twitter ID of today is past a double's precision"
    assert body["parent"] == str(MAX) and body["items"] == [str(PAST_DOUBLE)]
    assert polyflake.decode(minted, "twitter").machine_id == 5
    again = client.get(f"/orders/{minted}")
    assert again.status_code == 200 and again.json() == body
    assert client.get("/orders/12a").status_code == 422
    openapi = client.get("/openapi.json").json()
    order_schema = openapi["components"]["schemas"]["Order"]["properties"]["id"]
    assert order_schema["type"] == "string" and order_schema["pattern"] == SNOWFLAKE_ID_PATTERN


def test_the_base_package_requires_nothing() -> None:
    # Every requirement of the installed wheel belongs to an extra.
    requires = importlib.metadata.requires("polyflake") or []
    assert requires, "the extras are declared"
    assert all("extra ==" in r for r in requires), requires
