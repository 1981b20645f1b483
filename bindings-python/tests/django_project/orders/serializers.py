from __future__ import annotations

from polyflake.django.rest_framework import SnowflakeModelSerializer

from .models import Order


class OrderSerializer(SnowflakeModelSerializer):
    class Meta:
        model = Order
        fields = ["id", "parent", "item"]
