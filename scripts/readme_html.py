#!/usr/bin/env python3
"""A README as one plain HTML page, for the Maven -javadoc jar (Kotlin has no
javadoc of its own, and Dokka is not part of the build)."""

import html
import sys
from pathlib import Path

text = Path(sys.argv[1]).read_text()
print(
    "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>polyflake</title></head>"
    f"<body><pre>{html.escape(text)}</pre></body></html>"
)
