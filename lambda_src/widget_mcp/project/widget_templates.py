"""A generated project's widget (`widget-mcp new NAME --widget`): a Vite project under widgets/ whose entry is the
same `main.ts` the toolkit's `make app WIDGET=1` writes, building on the toolkit's widget kit (linked in from the
installed package by `make widgets`), and merged with the toolkit's own bundles into build/widgets."""

from __future__ import annotations

import json
from pathlib import Path
from string import Template

from widget_mcp.local.scaffold_templates import widget_entry, widget_files
from widget_mcp.project.widget_kit import npm_versions

VITE_CONFIG = """// The $title app's widget: dist/ with content-hashed files and manifest.json, which
// `make widgets` merges with the toolkit's bundles into build/widgets. shared/ and plugins/ are the
// toolkit's widget kit, linked in by make: its plugins and build options are the toolkit's own.
import { defineConfig } from "vite";
import { hashedNames, WIDGET_BUILD, widgetPlugins } from "./plugins/widget-build.ts";

export default defineConfig({
  base: "./",
  logLevel: "warn",
  plugins: widgetPlugins(),
  // The kit's modules resolve their npm imports from this folder's node_modules, not from where the kit lives.
  resolve: { preserveSymlinks: true },
  build: {
    ...WIDGET_BUILD,
    rollupOptions: {
      input: { "$kebab": "src/$name/main.ts" },
      output: hashedNames("$kebab-shared"),
    },
  },
});
"""

TSCONFIG = {
    "compilerOptions": {
        "target": "ES2022",
        "module": "ESNext",
        "moduleResolution": "bundler",
        "lib": ["ES2022", "DOM", "DOM.Iterable"],
        "types": ["vite/client"],
        "strict": True,
        "noEmit": True,
        "allowImportingTsExtensions": True,
        "noUnusedLocals": True,
        "noUnusedParameters": True,
        "isolatedModules": True,
        "skipLibCheck": True,
        "verbatimModuleSyntax": True,
        "preserveSymlinks": True,
    },
    "include": ["src", "plugins", "vite.config.ts"],
}

WIDGET_TEST = '''"""The widget's bundle: `make test` builds it first (`make widgets`), merged with the
toolkit's into the folder the server reads (WIDGET_DIST)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from $name.tools import ${NAME}_WIDGET

DIST = Path(os.environ.get("WIDGET_DIST", "build/widgets"))


def test_the_widgets_bundle_is_in_the_merged_dist_the_server_reads() -> None:
    entries = json.loads((DIST / "manifest.json").read_text())["entries"]
    files = entries[${NAME}_WIDGET.entry]
    assert (DIST / files["js"]).is_file()
    assert all((DIST / css).is_file() for css in files["css"])
'''

# The Makefile's widget rules, as make reads them: appended after the Makefile's substitutions, never substituted.
MAKE_RULES = """
# The widget: its npm packages (widgets/package-lock.json is made by the first run: commit it), the toolkit's widget
# kit linked in from the installed package, Vite's build, then the toolkit's bundles and these merged into
# build/widgets, which make dev serves and make synth deploys.
export WIDGET_DIST := $(CURDIR)/build/widgets

widgets/node_modules/.installed: widgets/package.json
\tnpm install --prefix widgets --no-audit --no-fund --loglevel=error
\t@touch $@

.PHONY: widgets
widgets: .venv/.synced widgets/node_modules/.installed
\tln -sfn "$$($(PY) -m widget_mcp.project.widget_kit shared)" widgets/src/shared
\tln -sfn "$$($(PY) -m widget_mcp.project.widget_kit plugins)" widgets/plugins
\tnpm run --prefix widgets --silent build
\t$(PY) -m widget_mcp.cli bundles --into build/widgets widgets/dist
"""


def widget_project_files(name: str, distribution: str) -> dict[Path, str]:
    """The widgets/ folder and the widget's test, by their paths inside the project."""
    kebab = widget_entry(name)
    title = name.replace("_", " ").title()
    dependencies, dev_dependencies = npm_versions()
    package = {
        "name": f"{distribution}-widgets",
        "private": True,
        "type": "module",
        "scripts": {"build": "tsc --noEmit && vite build"},
        "dependencies": dependencies,
        "devDependencies": dev_dependencies,
    }
    files = {
        Path("widgets/package.json"): json.dumps(package, indent=2) + "\n",
        Path("widgets/tsconfig.json"): json.dumps(TSCONFIG, indent=2) + "\n",
        Path("widgets/vite.config.ts"): Template(VITE_CONFIG).substitute(name=name, kebab=kebab, title=title),
        Path("tests") / f"test_{name}_widget.py": Template(WIDGET_TEST).substitute(name=name, NAME=name.upper()),
    }
    for path, text in widget_files(name).items():
        files[Path("widgets") / path.relative_to("widget_bundles")] = text
    return files
