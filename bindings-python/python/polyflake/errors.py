"""Exceptions raised by polyflake, one per stable error code of the contract.

Input errors subclass ``ValueError``, clock and identity errors ``RuntimeError``;
a mistake in the call itself (an unknown field or option name) subclasses both
``TypeError`` and ``ValueError``. Every exception carries ``.code`` and, where it
has them, details such as ``.field``, ``.value``, ``.max`` or ``.behind_ms``.
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = [
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


class PolyflakeError(Exception):
    """Base class of every polyflake error."""

    code: ClassVar[str] = "POLYFLAKE_ERROR"

    def __init__(
        self,
        message: str,
        text_details: dict[str, str] | None = None,
        int_details: dict[str, int] | None = None,
    ) -> None:
        super().__init__(message)
        for details in (text_details, int_details):
            for key, value in (details or {}).items():
                setattr(self, key, value)

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
    """The worker identity can no longer be trusted (also: a generator used after fork)."""

    code = "LEASE_LOST"


class InvalidArgumentError(PolyflakeError, TypeError, ValueError):
    """An unknown or missing node field, or an unknown option or encoding name."""

    code = "INVALID_ARGUMENT"


class StateIoError(PolyflakeError, OSError):
    """A lock or mark file of the state directory could not be read or written.

    An ``OSError``: ``errno`` is the OS's error number and ``filename`` the path."""

    code = "STATE_IO"
