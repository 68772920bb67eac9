"""The my-data tools' public names (ARCHITECTURE.md, "Publishing"), in one place for the tools themselves, the
`/account/data` routes that call them and the legal pages that name them."""

from __future__ import annotations

EXPORT_TOOL = "export_my_data"
ERASE_TOOL = "erase_my_data"
