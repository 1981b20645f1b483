from __future__ import annotations

from django.db import models
from polyflake.django import SnowflakeField


class Order(models.Model):
    id = SnowflakeField(primary_key=True)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL)
    item = models.CharField(max_length=40)


class Event(models.Model):
    """Keys written by the test itself, of any layout, for the range queries."""

    id = SnowflakeField(primary_key=True, layout="discord")
    at_ms = models.BigIntegerField()
