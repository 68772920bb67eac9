"""The import-circle check `make lint` runs (tests/import_cycles.py), on small trees planted here."""

from __future__ import annotations

from pathlib import Path

from import_cycles import main, tree_circles


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_a_circle_hidden_in_a_lazy_import_and_type_checking_is_found(tmp_path: Path) -> None:
    package = _write(
        tmp_path / "pkg",
        {
            "__init__.py": "",
            "tools.py": "def build():\n    from pkg.handlers import H\n    return H\n",
            "handlers.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.tools import build\n",
            "alone.py": "import pkg.tools\n",
        },
    )
    assert tree_circles(package) == [["pkg.handlers", "pkg.tools"]]


def test_relative_imports_are_resolved_against_the_importing_module(tmp_path: Path) -> None:
    package = _write(
        tmp_path / "pkg",
        {
            "__init__.py": "",
            "sub/__init__.py": "from . import a\n",
            "sub/a.py": "from ..b import thing\n",
            "b.py": "from .sub.a import other\nthing = other = 1\n",
        },
    )
    assert tree_circles(package) == [["pkg.b", "pkg.sub.a"]]


def test_a_tree_whose_imports_go_one_way_has_no_circle(tmp_path: Path) -> None:
    package = _write(
        tmp_path / "pkg",
        {"__init__.py": "", "a.py": "from pkg import b\n", "b.py": "from pkg.c import x\n", "c.py": "x = 1\n"},
    )
    assert tree_circles(package) == []
    assert main([str(package)]) == 0


def test_typescript_files_that_import_each_other_by_js_specifiers_form_a_circle(tmp_path: Path) -> None:
    source = _write(
        tmp_path / "src",
        {
            "form/app.ts": 'import { b } from "./model-context.js";\nexport const a = 1;\n',
            "form/model-context.ts": 'import type { a } from "./app";\nexport const b = 2;\n',
            "form/main.ts": 'import "./app";\nimport { x } from "../shared/x";\n',
            "shared/x.ts": "export const x = 3;\n",
        },
    )
    assert tree_circles(source) == [["form/app.ts", "form/model-context.ts"]]
    assert main([str(source)]) == 1
