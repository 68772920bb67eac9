"""The smallest media files the fixtures send: a 1×1 red PNG and a 1 ms silent WAV (8 kHz, 8-bit mono)."""

from __future__ import annotations

import base64

RED_PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)
SILENT_WAV = base64.b64decode("UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==")
