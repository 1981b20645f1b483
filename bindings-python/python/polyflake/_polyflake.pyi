from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import ClassVar, Literal, TypeAlias, final, overload

from ._types import Encoding, LayoutLike

# As the native module sets it; `_panic_for_tests` exists in test builds only.
__all__ = [
    "__version__",
    "Layout",
    "ManualClock",
    "compose",
    "decode",
    "explain",
    "min_id",
    "max_id",
    "Parts",
    "Segment",
    "format_id",
    "is_id_key",
    "parse_id",
    "ENCODINGS",
    "Generator",
    "_after_fork_in_child",
    "_panic_for_tests",
]
__version__: str
ENCODINGS: list[str]

_TextEncoding: TypeAlias = Literal[
    "decimal", "hex", "base2", "base32", "base36", "base58", "base64", "crockford32"
]

@final
class Layout:
    PRESETS: ClassVar[list[str]]
    TWITTER: ClassVar[Layout]
    SNOWFLAKE: ClassVar[Layout]
    DISCORD: ClassVar[Layout]
    INSTAGRAM: ClassVar[Layout]
    SONYFLAKE: ClassVar[Layout]
    def __new__(cls, name: str) -> Layout: ...
    @staticmethod
    def preset(name: str) -> Layout: ...
    @staticmethod
    def custom(
        epoch_ms: int,
        time_bits: int,
        nodes: Mapping[str, int] | Sequence[tuple[str, int]] | None = None,
        sequence_bits: int | None = None,
        tick_ms: int | None = None,
        sequence_above_nodes: bool = False,
    ) -> Layout: ...
    @property
    def name(self) -> str: ...
    @property
    def epoch_ms(self) -> int: ...
    @property
    def tick_ms(self) -> int: ...
    @property
    def time_bits(self) -> int: ...
    @property
    def sequence_bits(self) -> int: ...
    @property
    def sequence_above_nodes(self) -> bool: ...
    @property
    def unused_bits(self) -> int: ...
    @property
    def max_sequence(self) -> int: ...
    @property
    def max_timestamp_ms(self) -> int: ...
    @property
    def nodes(self) -> list[tuple[str, int]]: ...
    @property
    def field_names(self) -> list[str]: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Parts:
    @property
    def id(self) -> int: ...
    @property
    def timestamp_ms(self) -> int: ...
    @property
    def sequence(self) -> int: ...
    @property
    def layout(self) -> Layout: ...
    @property
    def time(self) -> datetime: ...
    @property
    def _fields(self) -> list[str]: ...
    def __getattr__(self, name: str) -> int: ...
    def _asdict(self) -> dict[str, int]: ...
    def to_dict(self) -> dict[str, int]: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Segment:
    name: str
    kind: Literal["unused", "time", "node", "sequence"]
    msb: int
    lsb: int
    width: int
    value: int
    bits: str

@final
class ManualClock:
    def __new__(cls, now_ms: int) -> ManualClock: ...
    @property
    def now_ms(self) -> int: ...
    def set(self, now_ms: int) -> None: ...
    def advance(self, delta_ms: int) -> None: ...

@final
class Generator:
    def __new__(
        cls,
        layout: LayoutLike,
        *,
        clock: Literal["monotonic", "wall"] | ManualClock | None = None,
        on_clock_backwards: Literal["fail", "wait", "logical"] = "wait",
        max_backwards_ms: int | None = None,
        **node_fields: int,
    ) -> Generator: ...
    @staticmethod
    def from_env(
        layout: LayoutLike,
        *,
        clock: Literal["monotonic", "wall"] | ManualClock | None = None,
        on_clock_backwards: Literal["fail", "wait", "logical"] = "wait",
        max_backwards_ms: int | None = None,
        check: Callable[[tuple[int, ...]], bool] | None = None,
    ) -> Generator: ...
    @staticmethod
    def from_etcd(
        layout: LayoutLike,
        endpoints: str | Sequence[str],
        *,
        prefix: str | None = None,
        ttl: float | None = None,
        keep_alive: float | None = None,
        safety_margin: float | None = None,
        request_timeout: float | None = None,
        node_range: tuple[int, int] | None = None,
        clock: Literal["monotonic", "wall"] | ManualClock | None = None,
        on_clock_backwards: Literal["fail", "wait", "logical"] = "wait",
        max_backwards_ms: int | None = None,
        check: Callable[[tuple[int, ...]], bool] | None = None,
    ) -> Generator: ...
    @property
    def identity_source(self) -> str: ...
    def next_id(self) -> int: ...
    def next_ids(self, n: int) -> list[int]: ...
    def close(self) -> None: ...
    def __enter__(self) -> Generator: ...
    def __exit__(self, *exc: object) -> bool: ...
    @property
    def layout(self) -> Layout: ...
    @property
    def node_fields(self) -> list[tuple[str, int]]: ...

def compose(layout: LayoutLike, *, timestamp_ms: int, sequence: int, **node_fields: int) -> int: ...
def decode(id: int, layout: LayoutLike) -> Parts: ...
def explain(id: int, layout: LayoutLike) -> list[Segment]: ...
def min_id(layout: LayoutLike, timestamp_ms: int) -> int: ...
def max_id(layout: LayoutLike, timestamp_ms: int) -> int: ...
@overload
def format_id(id: int, encoding: Literal["bytes"]) -> bytes: ...
@overload
def format_id(id: int, encoding: _TextEncoding | None = None) -> str: ...
def is_id_key(key: str) -> bool: ...
def parse_id(text: str | bytes, encoding: Encoding | None = None) -> int: ...
def _after_fork_in_child() -> None: ...
def _panic_for_tests() -> None: ...  # test builds only (feature `test-hooks`)
