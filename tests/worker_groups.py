"""How `make test` spreads the tests over pytest-xdist's workers (`-n auto --dist loadgroup`).

A test file runs whole on one worker, so its module-scoped fixtures (a server, a browser) are built once. Files that
use the same costly session fixture, declared with `once_per_run`, run on one worker together, so that fixture is
built once per run rather than once per worker; so do files whose tests carry the same `xdist_group` mark. Any new
test file follows these rules without being listed. Work is handed out in collection order, as workers free up.

The groups are found where the tests are collected, in the workers (fixtures are known only there), and read by the
scheduler in the controller from a file each worker writes: xdist's own `--dist loadgroup` carries them in node ids,
which pytest 9.2's structured node ids no longer let it change (pytest-xdist issue 1386).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import pytest

F = TypeVar("F", bound=Callable[..., object])

# Fixture names whose users share one worker.
ONCE_PER_RUN: set[str] = set()
GROUPS_FILE = pytest.StashKey[Path]()


def once_per_run(function: F) -> F:
    """A session fixture too costly to build on every worker (a CDK synth): the files using it share one."""
    ONCE_PER_RUN.add(function.__name__)
    return pytest.fixture(scope="session")(function)


def file_of(node_id: str) -> str:
    return node_id.split("::", 1)[0]


def file_groups(tests: Iterable[tuple[str, Iterable[str]]]) -> dict[str, str]:
    """The group of each test file, from (node id, shared names) pairs (`shared_names`): the file itself, or one
    group for each set of files linked through shared names, named after one of those names."""
    parent: dict[str, str] = {}

    def root(key: str) -> str:
        parent.setdefault(key, key)
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    files: list[str] = []
    for node_id, names in tests:
        path = file_of(node_id)
        if path not in parent:
            files.append(path)
        root(path)
        for name in sorted(names):
            shared, own = root(f"shared:{name}"), root(path)
            if shared != own:  # a shared name, not a file, names the group
                first, second = sorted((shared, own), key=lambda key: (not key.startswith("shared:"), key))
                parent[second] = first
    return {path: root(path).removeprefix("shared:") for path in files}


def shared_names(item: pytest.Item) -> list[str]:
    """What links a test's file to others: the `once_per_run` fixtures it uses and its `xdist_group` marks."""
    marks = [m.args[0] if m.args else m.kwargs.get("name", "default") for m in item.iter_markers("xdist_group")]
    return [name for name in item.fixturenames if name in ONCE_PER_RUN] + [str(mark) for mark in marks]


def write_groups(path: Path, groups: dict[str, str]) -> None:
    """Each worker writes the same map; a temp file and a rename keep every read whole."""
    temp = path.with_name(f"{path.name}.{os.getpid()}")
    temp.write_text(json.dumps(groups))
    os.replace(temp, path)


def scheduler(config: pytest.Config, log: Any, groups_file: Path) -> Any:
    """xdist's scope scheduling with a test's scope being its file's group, in collection order."""
    from xdist.scheduler import LoadScopeScheduling

    class FileGroupScheduling(LoadScopeScheduling):  # type: ignore[misc]
        _groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self._groups is None:  # read once every worker has collected, which is when scheduling starts
                self._groups = json.loads(groups_file.read_text())
            path = file_of(nodeid)
            return self._groups.get(path, path)

    config.option.loadscopereorder = False  # collection order: the long browser files first, unit files last
    return FileGroupScheduling(config, log)


# --- the hooks (tests/conftest.py imports them) ---


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("dist", default="no") == "loadgroup" and not hasattr(config, "workerinput"):
        folder = Path(tempfile.mkdtemp(prefix="pytest-worker-groups-"))
        config.stash[GROUPS_FILE] = folder / "groups.json"


def pytest_unconfigure(config: pytest.Config) -> None:
    if GROUPS_FILE in config.stash:
        shutil.rmtree(config.stash[GROUPS_FILE].parent, ignore_errors=True)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    if GROUPS_FILE in node.config.stash:
        node.workerinput["worker_groups"] = str(node.config.stash[GROUPS_FILE])


@pytest.hookimpl(optionalhook=True, tryfirst=True)  # before xdist's own loadgroup scheduler
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    return scheduler(config, log, config.stash[GROUPS_FILE]) if GROUPS_FILE in config.stash else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    groups_file = getattr(config, "workerinput", {}).get("worker_groups")
    if groups_file:
        write_groups(Path(groups_file), file_groups((item.nodeid, shared_names(item)) for item in items))
