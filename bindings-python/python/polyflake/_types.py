"""Type aliases that exist at runtime too, so that `polyflake.Encoding` and
`polyflake.LayoutLike` can be imported as well as annotated with."""

from __future__ import annotations

from typing import Literal, Union

from ._polyflake import Layout

LayoutLike = Union[Layout, str]  # noqa: UP007 (kept a typing.Union at runtime, as stubtest checks)
"""A layout, or a preset's name."""

# Spelled as a Union of one-name Literals: the same type to a checker, and the
# runtime object is a Union, as stubtest expects of a union alias.
Encoding = Union[  # noqa: PYI030, UP007 (a single Literal is not a Union at runtime)
    Literal["decimal"],
    Literal["hex"],
    Literal["base2"],
    Literal["base32"],
    Literal["base36"],
    Literal["base58"],
    Literal["base64"],
    Literal["crockford32"],
    Literal["bytes"],
]
"""An encoding's name."""
