"""The endpoint's log, which every step writes to: its lines keep the logger name they had when the endpoint was one
module (`widget_mcp.transport.endpoint`), so what reads them by name still finds them."""

from __future__ import annotations

import logging

logger = logging.getLogger("widget_mcp.transport.endpoint")
