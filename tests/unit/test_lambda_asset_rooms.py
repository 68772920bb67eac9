"""The rooms the Lambda asset leaves out (local mode, the readiness check, the publishing tools, the CDK construct,
the asset builder itself) are never imported by what the function runs: the handler and every registered app, with
every import each of their modules writes (lazy ones and type-only ones included), followed to the end."""

from __future__ import annotations

from pathlib import Path

from import_cycles import python_graph
from widget_mcp.apps.registry import APPS
from widget_mcp.lambda_asset.source import EXCLUDED_SOURCES, PACKAGE, LambdaSource

PACKAGE_DIR = LambdaSource.repository().source_root / PACKAGE
# Imports written in a branch only local mode takes (importer → imported), each with why Lambda never runs it.
LOCAL_MODE_ONLY = {
    # `/widgets` is mounted only when local mode passes `widget_dir`; in Lambda the CDN serves the bundles.
    (f"{PACKAGE}.app", f"{PACKAGE}.local.widget_files"),
}


def _left_out(module: str) -> bool:
    path = module.replace(".", "/")
    return any(f"{path}/".startswith(room) or f"{path}.py".startswith(room) for room in EXCLUDED_SOURCES)


def _reached(graph: dict[str, set[str]], starts: list[str]) -> dict[str, str]:
    """Every module reached from `starts` → the module that first imported it (importing `a.b.c` runs `a.b` too)."""
    seen = {start: "" for start in starts}
    todo = list(starts)
    while todo:
        module = todo.pop()
        parents = {".".join(module.split(".")[:n]) for n in range(1, module.count(".") + 1)}
        for found in sorted((graph.get(module, set()) | parents) - seen.keys()):
            if found in graph and (module, found) not in LOCAL_MODE_ONLY:
                seen[found] = module
                todo.append(found)
    return seen


def test_the_cdk_construct_and_the_asset_builder_are_rooms_the_asset_leaves_out() -> None:
    assert _left_out(f"{PACKAGE}.cdk.service")
    assert _left_out(f"{PACKAGE}.lambda_asset.build")
    assert not _left_out(f"{PACKAGE}.handler")
    packaged = {path.relative_to(PACKAGE_DIR.parent).as_posix() for path in LambdaSource.repository().files()}
    assert not {name for name in packaged if name.startswith((f"{PACKAGE}/cdk/", f"{PACKAGE}/lambda_asset/"))}
    assert (PACKAGE_DIR / "cdk" / "service.py").is_file()  # they exist: the asset just never carries them


def test_nothing_the_handler_or_a_registered_app_imports_reaches_a_room_the_asset_leaves_out() -> None:
    graph = python_graph(Path(PACKAGE_DIR))
    reached = _reached(graph, [f"{PACKAGE}.handler", *(app for app in APPS if app in graph)])
    assert f"{PACKAGE}.handler" in reached
    assert len(reached) > 20, "the walk follows the handler's imports"
    leaks = {module: importer for module, importer in reached.items() if _left_out(module)}
    assert leaks == {}, "module → the module importing it"
    assert all(importer in reached for importer, _ in LOCAL_MODE_ONLY), "an exception for an import that is gone"
