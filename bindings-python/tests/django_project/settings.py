"""A Django project of the tests' own (test_django.py): one app, `orders`,
on the PostgreSQL whose URL is in POLYFLAKE_TEST_DATABASE_URL."""

from __future__ import annotations

import os
from urllib.parse import urlsplit

_db = urlsplit(os.environ.get("POLYFLAKE_TEST_DATABASE_URL", "postgresql://polyflake@127.0.0.1/x"))

SECRET_KEY = "tests-only"
USE_TZ = True
INSTALLED_APPS = ["django.contrib.contenttypes", "rest_framework", "orders"]
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": _db.path.lstrip("/"),
        "USER": _db.username,
        "HOST": _db.hostname,
        "PORT": _db.port,
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
POLYFLAKE_LAYOUT = "twitter"
