"""Cold-start trim: import the SDK's server kernel without running its package-level re-exports.

`import mcp.server.runner` normally executes `mcp/__init__.py` and `mcp/server/__init__.py`, which pull in
the client, `MCPServer`, the SSE and stdio transports, uvicorn and httpx: about a third of a second
that a stateless Lambda never uses. `defer_package_init` registers those packages with their real
search path but postpones their `__init__` until an attribute is first read from them, so
`from mcp import Client` still works, just later. Call it before anything imports `mcp`.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType
from typing import Any

DEFERRED_PACKAGES = ("mcp", "mcp.server")


def defer_package_init(*names: str) -> None:
    for name in names:
        if name in sys.modules:
            continue
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or spec.submodule_search_locations is None:
            continue
        module = importlib.util.module_from_spec(spec)
        _install_loader_hook(module, spec)
        sys.modules[name] = module
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, module)


def _install_loader_hook(module: ModuleType, spec: Any) -> None:
    def __getattr__(attr: str) -> Any:  # noqa: N807 - the PEP 562 hook
        # Runs the real __init__ into this very module object, once, then answers normally.
        del module.__dict__["__getattr__"]
        spec.loader.exec_module(module)
        return getattr(module, attr)

    module.__dict__["__getattr__"] = __getattr__
