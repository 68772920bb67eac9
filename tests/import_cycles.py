"""Finds import circles: among the Python modules of a package and among the TypeScript files of a source tree.

Every import counts, wherever it is written: at module level, inside a function (a lazy import) and under
`if TYPE_CHECKING:`. Those only hide a circle from the interpreter; the modules still need each other. `make lint`
runs it over lambda_src/widget_mcp, infra, bench and widget_bundles/src; it prints each circle and exits 1.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

Graph = Mapping[str, set[str]]

# `import … from "./x"`, `export … from "./x"`, `import("./x")` and `import "./x"`: relative specifiers only.
_TS_IMPORT = re.compile(
    r"""(?:import|export)\s[^;]*?from\s*["'](\.[^"']*)["']|import\s*\(\s*["'](\.[^"']*)["']\s*\)|import\s*["'](\.[^"']*)["']""",
    re.S,
)
_TS_SUFFIXES = (".ts", ".tsx")


def python_graph(package: Path) -> dict[str, set[str]]:
    """Module → the package's modules it imports. `from p import m` is an edge to the module `p.m` where that is a
    module, else to `p`."""
    root = package.parent
    modules: dict[str, Path] = {}
    for path in sorted(package.rglob("*.py")):
        name = ".".join(path.relative_to(root).with_suffix("").parts)
        modules[name.removesuffix(".__init__")] = path
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                graph[name].update(alias.name for alias in node.names if alias.name in modules)
            elif isinstance(node, ast.ImportFrom):
                target = _absolute(name, is_package, node)
                for alias in node.names:
                    if f"{target}.{alias.name}" in modules:
                        graph[name].add(f"{target}.{alias.name}")
                    elif target in modules:
                        graph[name].add(target)
    for edges in graph.values():
        edges.difference_update({""})
    return graph


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def typescript_graph(source: Path) -> dict[str, set[str]]:
    """File → the files of `source` it imports by a relative specifier (`./x`, `./x.js`, `./x/index`)."""
    files = {path.resolve(): path for path in source.rglob("*") if path.suffix in _TS_SUFFIXES}
    files = {resolved: path for resolved, path in files.items() if "node_modules" not in path.parts}
    graph: dict[str, set[str]] = {}
    for resolved in sorted(files):
        name = str(resolved.relative_to(source.resolve()))
        edges = graph.setdefault(name, set())
        for match in _TS_IMPORT.finditer(resolved.read_text(encoding="utf-8")):
            specifier = next(group for group in match.groups() if group)
            target = _ts_target(resolved.parent / specifier, files)
            if target is not None:
                edges.add(str(target.relative_to(source.resolve())))
    return graph


def _ts_target(base: Path, files: Mapping[Path, Path]) -> Path | None:
    base = base.resolve()
    stem = Path(str(base).removesuffix(".js"))
    for candidate in (base, *(stem.with_suffix(s) for s in _TS_SUFFIXES), base / "index.ts", base / "index.tsx"):
        if candidate in files:
            return candidate
    return None


def circles(graph: Graph) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm, iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterable[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found)


def tree_circles(tree: Path) -> list[list[str]]:
    """The circles of a Python package (a folder with `__init__.py`) or of a TypeScript source folder."""
    graph = python_graph(tree) if (tree / "__init__.py").exists() else typescript_graph(tree)
    return circles(graph)


def main(trees: list[str]) -> int:
    failed = False
    for tree in trees:
        for circle in tree_circles(Path(tree)):
            failed = True
            print(f"{tree}: import circle: {' ↔ '.join(circle)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
