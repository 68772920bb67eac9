"""The guides' stateful apps ("Keep state": a poll; "Shared state": team polls on spaces, whose tools need an
identified user and make a two-step chain of ids) written into a copy of the repository and registered, as a user
following the guides would: the tests derived from the registry must pass with them served."""

from __future__ import annotations

from pathlib import Path

from readme_snippets import section_python

# Package name in the copy → the guide section whose python blocks are its `__init__.py`.
GUIDE_APPS = {"team_poll": "Keep state", "team_space": "Shared state"}


def add_guide_apps(copy: Path) -> list[str]:
    """Write each guide app's package into `copy` and add it to its registry; answers the registry entries."""
    entries = []
    for package, heading in GUIDE_APPS.items():
        target = copy / "lambda_src/widget_mcp/apps" / package
        target.mkdir()
        (target / "__init__.py").write_text("\n\n".join(section_python(heading)))
        entries.append(f"widget_mcp.apps.{package}")
    registry = copy / "lambda_src/widget_mcp/apps/registry.py"
    text = registry.read_text()
    last = '    "widget_mcp.apps.my_data",\n'
    assert last in text, "the registry's last entry moved: update guide_apps.py"
    registry.write_text(text.replace(last, last + "".join(f'    "{entry}",\n' for entry in entries)))
    return entries
