"""`widget-mcp new NAME [--widget]`: a standalone project on the installed toolkit.

The app itself comes from the same templates as the toolkit repository's `make app` (so both stay proved by the same
tests), moved from `widget_mcp.apps.NAME` to a package of the project's own under `src/`. Around it: a pyproject
pinning this toolkit, a Makefile with `make dev` / `make test` / `make synth` / `make deploy`, `.ci/run`, a CDK app
on the `WidgetMcpService` construct, and a README. Nothing is written when the target exists.
"""

from __future__ import annotations

import importlib.util
import keyword
import re
import shlex
import shutil
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from string import Template

from widget_mcp.local.paths import TOOLKIT_BUNDLES
from widget_mcp.local.scaffold_templates import app_files, widget_entry
from widget_mcp.project import templates
from widget_mcp.project.bundle_merge import MergeError, manifest_entries
from widget_mcp.project.cdk_app import cdk_app_files
from widget_mcp.project.toolkit_pin import ToolkitPin, installed_pin
from widget_mcp.project.widget_templates import MAKE_RULES, widget_project_files

# Where a project keeps the toolkit's wheel it was generated from, until the toolkit comes from an index.
WHEELS = "wheels"
_NAME = re.compile(r"^[a-z][a-z0-9_]{1,30}$")
# Names a project package cannot take: they would shadow what the project imports.
_TAKEN = {"widget_mcp", "infra", "tests", "test", "src", "mcp", "aws_cdk", "constructs", "pydantic", "boto3"}
# Folders of widgets/src the kit links in: an app's widget folder cannot take their names.
WIDGET_FOLDERS = {"shared", "plugins"}


class GenerateError(ValueError):
    """The project cannot be generated as asked; carries the offending name or path."""

    def __init__(self, subject: str, problem: str) -> None:
        super().__init__(f"cannot generate {subject!r}: {problem}")
        self.subject = subject


@dataclass(frozen=True)
class Generated:
    root: Path
    files: list[Path]


def check_name(name: str, *, widget: bool = False) -> None:
    """Refuse a name the app's package cannot take: src/ comes first on the project's path, so a package named like a
    standard module or an installed one (the toolkit's dependencies included) would hide it."""
    if not _NAME.match(name) or name.endswith("_") or "__" in name:
        raise GenerateError(
            name, "use 2 to 31 lower-case letters, digits and single underscores, starting with a letter"
        )
    if keyword.iskeyword(name) or name in _TAKEN or name in sys.stdlib_module_names:
        raise GenerateError(name, "that name is taken by Python or by what the project imports; choose another")
    if _installed(name) or name in _toolkit_requirements():
        raise GenerateError(name, "a package of that name is installed beside the toolkit; choose another")
    if widget and (name in WIDGET_FOLDERS or widget_entry(name) in _toolkit_entries()):
        raise GenerateError(name, "the toolkit's widgets use that name; choose another")


def _installed(name: str) -> bool:
    """A module or regular package of that name is importable (a folder on the path without `__init__.py`, a
    namespace package, hides nothing: a regular package is found first)."""
    spec = importlib.util.find_spec(name)
    return spec is not None and spec.origin is not None


def _toolkit_requirements() -> set[str]:
    """The import names of what the toolkit depends on (a project installs them too), as far as metadata says."""
    try:
        requires = metadata.requires("widget-mcp") or []
    except metadata.PackageNotFoundError:
        return set()
    return {re.split(r"[\s\[;<>=!~]", line, maxsplit=1)[0].lower().replace("-", "_") for line in requires}


def _toolkit_entries() -> set[str]:
    """The entry names of the toolkit's own widget bundles, which a project's bundles are merged with."""
    try:
        return set(manifest_entries(TOOLKIT_BUNDLES))
    except MergeError:
        return set()


def _app_files(name: str, *, widget: bool) -> dict[Path, str]:
    """The scaffold's app and tests, as a package of the project's own under src/ with its tests under tests/."""
    moved: dict[Path, str] = {}
    package = Path("lambda_src/widget_mcp/apps") / name
    for path, text in app_files(name, widget=widget).items():
        if path.is_relative_to(package):
            target = Path("src") / name / path.relative_to(package)
        else:
            target = Path("tests") / path.name
        text = text.replace(f"widget_mcp.apps.{name}", name).replace("Scaffolded by `make app`", "Generated")
        text = text.replace(f"widget_bundles/src/{name}/", f"widgets/src/{name}/")
        moved[target] = _own_section(text, name)
    return moved


def _top_module(line: str) -> str | None:
    """The package a top-level import line imports from, or None for any other line."""
    if not line.startswith(("import ", "from ")):
        return None
    return line.split()[1].split(".")[0]


def _own_section(text: str, name: str) -> str:
    """Sort the imports as isort does in a project: the toolkit with the other third-party packages, the app's own
    modules in a section after them (inside the toolkit's repository the order is the other way round)."""
    lines = text.split("\n")
    for i in range(len(lines) - 1, 1, -1):
        module, before = _top_module(lines[i]), _top_module(lines[i - 2])
        third_party = before is not None and before not in {*sys.stdlib_module_names, "__future__", name}
        if module == "widget_mcp" and not lines[i - 1] and third_party:
            del lines[i - 1]
    for i in range(len(lines) - 1, 0, -1):
        previous = _top_module(lines[i - 1])
        if _top_module(lines[i]) == name and previous is not None and previous != name:
            lines.insert(i, "")
    return "\n".join(lines)


def planned_files(name: str, *, widget: bool = False, pin: ToolkitPin | None = None) -> dict[Path, str]:
    """Every file of the project, by its path inside the project."""
    check_name(name, widget=widget)
    pin = pin or installed_pin()
    title = name.replace("_", " ").title()
    fields = {
        "name": name,
        "title": title,
        "distribution": name.replace("_", "-"),
        "toolkit": pin.requirement(),
        "toolkit_dev": pin.requirement("local,cdk"),
        "test_tools": "".join(f'    "{tool}",\n' for tool in templates.TEST_TOOLS),
        "sources": Template(templates.WHEEL_SOURCE).substitute(wheel=f"{WHEELS}/{pin.wheel.name}") if pin.wheel else "",
        "uv_version": templates.UV_VERSION,
        "cdk_version": templates.CDK_CLI_VERSION,
        # dev, test, synth and submission build the widget first.
        "widget_prerequisite": " widgets" if widget else "",
        "widget_help": templates.WIDGET_HELP if widget else "",
        "widget_layout": Template(templates.WIDGET_LAYOUT).substitute(name=name) if widget else "",
    }
    files = {
        Path("pyproject.toml"): Template(templates.PYPROJECT).substitute(fields),
        Path("Makefile"): Template(templates.MAKEFILE).substitute(fields) + (MAKE_RULES if widget else ""),
        Path(".ci/run"): Template(templates.CI_RUN).substitute(fields),
        Path(".gitignore"): templates.GITIGNORE,
        Path("README.md"): Template(templates.README).substitute(fields),
        Path("src") / name / "py.typed": "",
        Path("tests/conftest.py"): Template(templates.CONFTEST).substitute(fields),
    }
    files.update(_app_files(name, widget=widget))
    files.update(cdk_app_files(name, title, widget=widget))
    if widget:
        files.update(widget_project_files(name, fields["distribution"]))
    return files


def generate(name: str, root: Path, *, widget: bool = False, pin: ToolkitPin | None = None) -> Generated:
    pin = pin or installed_pin()
    files = planned_files(name, widget=widget, pin=pin)
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise GenerateError(str(root), "it exists and is not an empty folder; choose another with --into")
    written = []
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        if path == Path(".ci/run"):
            target.chmod(0o755)
        written.append(path)
    if pin.wheel is not None:
        # A copy inside the project, named by a relative path: the project builds on another machine and in CI.
        wheel = Path(WHEELS) / pin.wheel.name
        (root / WHEELS).mkdir()
        shutil.copy2(pin.wheel, root / wheel)
        written.append(wheel)
    return Generated(root, written)


def run_new(name: str, *, widget: bool = False, into: str | None = None) -> int:
    """The command: generate, then say what was written and what to run next."""
    root = Path(into) if into else Path.cwd() / name
    pin = installed_pin()
    try:
        generated = generate(name, root, widget=widget, pin=pin)
    except GenerateError as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"generated the {name} project in {generated.root} ({len(generated.files)} files)")
    if pin.wheel is None:
        print(
            f"note: it pins {pin.requirement()} from a package index; to build on a wheel you made (make dist), "
            "generate with `uvx --from <the wheel> widget-mcp new`"
        )
    where = shlex.quote(str(generated.root))
    print(f"next: cd {where} && make test   (then `make dev` serves it, `make synth` writes its stack)")
    return 0
