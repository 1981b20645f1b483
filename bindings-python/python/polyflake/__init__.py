"""polyflake: Snowflake IDs from one Rust core.

Bit-exact layouts (``twitter``, ``snowflake``, ``discord``, ``instagram``,
``sonyflake`` and validated custom ones), an exact compose/decode round trip,
text encodings, and a generator that never issues the same ID twice — across
threads, under clock faults, and across ``os.fork``.
"""

from __future__ import annotations

from . import errors
from ._json import dumps, is_id_key, json_default, loads
from ._polyflake import (
    ENCODINGS,
    Generator,
    GeneratorStats,
    Layout,
    LeaseStats,
    ManualClock,
    Parts,
    Segment,
    ServiceGenerator,
    ServiceStats,
    __version__,
    compose,
    decode,
    explain,
    format_id,
    max_id,
    min_id,
    parse_id,
)
from ._types import Encoding, LayoutLike
from .errors import (
    ArgumentKind,
    ClockMovedBackwardsError,
    FieldOutOfRangeError,
    InvalidArgumentError,
    InvalidEncodingError,
    InvalidLayoutError,
    LeaseLostError,
    LeaseLostReason,
    PolyflakeError,
    StateIoError,
    TimestampBeforeEpochError,
    TimestampOverflowError,
)

__all__ = [
    "ArgumentKind",
    "ENCODINGS",
    "Encoding",
    "ClockMovedBackwardsError",
    "FieldOutOfRangeError",
    "Generator",
    "GeneratorStats",
    "InvalidArgumentError",
    "InvalidEncodingError",
    "InvalidLayoutError",
    "Layout",
    "LayoutLike",
    "LeaseLostError",
    "LeaseLostReason",
    "LeaseStats",
    "ManualClock",
    "Parts",
    "PolyflakeError",
    "Segment",
    "ServiceGenerator",
    "ServiceStats",
    "StateIoError",
    "TimestampBeforeEpochError",
    "TimestampOverflowError",
    "__version__",
    "compose",
    "decode",
    "dumps",
    "errors",
    "explain",
    "format_id",
    "is_id_key",
    "json_default",
    "loads",
    "max_id",
    "min_id",
    "parse_id",
]
