"""Run against a wheel built without the `etcd` feature (what a plain
`pip install ./bindings-python` builds); scripts/test-python.sh puts it first
on the path."""

from __future__ import annotations

import os

import polyflake
import pytest

REFUSED = r"built without the cargo feature `etcd`.*--features etcd"


def test_this_is_the_build_without_features() -> None:
    assert not hasattr(polyflake._polyflake, "_panic_for_tests")


def test_etcd_endpoints_are_refused_with_the_documented_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for key in list(os.environ):
        if key.startswith("POLYFLAKE_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("POLYFLAKE_ETCD_ENDPOINTS", "http://127.0.0.1:1")
    with pytest.raises(polyflake.InvalidArgumentError, match=REFUSED) as e:
        polyflake.Generator.from_env("twitter")
    assert e.value.code == "INVALID_ARGUMENT"


def test_from_etcd_is_refused_with_the_same_error() -> None:
    with pytest.raises(polyflake.InvalidArgumentError, match=REFUSED):
        polyflake.Generator.from_etcd("twitter", "http://127.0.0.1:1")
