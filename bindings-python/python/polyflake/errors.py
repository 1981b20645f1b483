"""Exceptions raised by polyflake, one per stable error code of the contract.

Input errors subclass ``ValueError``, clock and identity errors ``RuntimeError``;
a mistake in the call itself (an unknown field or option name) subclasses both
``TypeError`` and ``ValueError``. Every exception carries ``.code`` and, where it
has them, details such as ``.field``, ``.value``, ``.max`` or ``.behind_ms``.
``LeaseLostError.reason`` says why a generator refuses (a :class:`LeaseLostReason`)
and ``.retryable`` whether waiting can help; ``InvalidArgumentError.kind`` what
kind of mistake it is (an :class:`ArgumentKind`). Both enums are ``str`` enums
of the contract's names, checked against the core's lists by the tests.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, ClassVar

__all__ = [
    "ArgumentKind",
    "LeaseLostReason",
    "PolyflakeError",
    "FieldOutOfRangeError",
    "TimestampBeforeEpochError",
    "TimestampOverflowError",
    "InvalidLayoutError",
    "InvalidEncodingError",
    "ClockMovedBackwardsError",
    "LeaseLostError",
    "InvalidArgumentError",
    "StateIoError",
]


class LeaseLostReason(str, Enum):
    """Why a generator refuses to issue under its identity (``docs/contract.md``)."""

    CLOSED = "closed"
    FORKED = "forked"
    LAPSED = "lapsed"
    UNREACHABLE = "unreachable"
    TAKEN_OVER = "taken_over"
    EXHAUSTED = "exhausted"
    CLOCK_GAP = "clock_gap"
    CHECK_REFUSED = "check_refused"
    STATE_UNSAFE = "state_unsafe"

    def __str__(self) -> str:
        return self.value


class ArgumentKind(str, Enum):
    """What kind of mistake an ``InvalidArgumentError`` is (``docs/contract.md``)."""

    UNKNOWN_NAME = "unknown_name"
    MISSING_FIELD = "missing_field"
    CONFIGURATION = "configuration"
    NOT_IN_BUILD = "not_in_build"
    NODE_CHECK = "node_check"
    USAGE = "usage"

    def __str__(self) -> str:
        return self.value


class PolyflakeError(Exception):
    """Base class of every polyflake error."""

    code: ClassVar[str] = "POLYFLAKE_ERROR"
    # Details that are an enum's value: the name the core gives, as the member.
    _enums: ClassVar[dict[str, type[Enum]]] = {}

    def __init__(
        self,
        message: str,
        text_details: dict[str, str] | None = None,
        int_details: dict[str, int] | None = None,
        flag_details: dict[str, bool] | None = None,
    ) -> None:
        super().__init__(message)
        for details in (text_details, int_details, flag_details):
            for key, value in (details or {}).items():
                enum = self._enums.get(key)
                setattr(self, key, enum(value) if enum is not None else value)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self),), self.__dict__)


class FieldOutOfRangeError(PolyflakeError, ValueError):
    """A node field, the sequence or an ID outside ``0..=max`` (never masked)."""

    code = "FIELD_OUT_OF_RANGE"
    field: str
    value: int
    max: int


class TimestampBeforeEpochError(PolyflakeError, ValueError):
    """A timestamp earlier than the layout's epoch."""

    code = "TIMESTAMP_BEFORE_EPOCH"


class TimestampOverflowError(PolyflakeError, ValueError):
    """A timestamp past the end of the layout's time field."""

    code = "TIMESTAMP_OVERFLOW"


class InvalidLayoutError(PolyflakeError, ValueError):
    """A custom layout that cannot exist, or an unknown preset name."""

    code = "INVALID_LAYOUT"


class InvalidEncodingError(PolyflakeError, ValueError):
    """Text that is not exactly a valid 64-bit ID in that encoding."""

    code = "INVALID_ENCODING"


class ClockMovedBackwardsError(PolyflakeError, RuntimeError):
    """The clock went back further than the generator's policy allows."""

    code = "CLOCK_MOVED_BACKWARDS"
    behind_ms: int
    allowed_ms: int


class LeaseLostError(PolyflakeError, RuntimeError):
    """The worker identity can no longer be trusted; ``reason`` says why
    (``FORKED`` for a generator used after fork) and ``retryable`` whether
    waiting and calling again can help."""

    code = "LEASE_LOST"
    _enums = {"reason": LeaseLostReason}
    reason: LeaseLostReason
    retryable: bool


class InvalidArgumentError(PolyflakeError, TypeError, ValueError):
    """A mistake in the call or the configuration; ``kind`` says which:
    an unknown name, a missing field, a bad environment variable …"""

    code = "INVALID_ARGUMENT"
    _enums = {"kind": ArgumentKind}
    kind: ArgumentKind


class StateIoError(PolyflakeError, OSError):
    """A lock or mark file of the state directory could not be read or written.

    An ``OSError``: ``errno`` is the OS's error number and ``filename`` the path."""

    code = "STATE_IO"
