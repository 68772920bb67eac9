"""`make dev`'s widget rebuilds: Vite's build in watch mode, from widget_bundles' locked node_modules, beside the
server. Each rebuild writes new content-hashed files and `dist/manifest.json`; the reloader sees the manifest
change and restarts the app, whose templates then carry new `ui://` URIs.

Vite runs through its JavaScript API in a small Node script rather than `vite build --watch`, for two reasons:
the output directory is not emptied on a rebuild (a frame still showing the previous template keeps its files;
the next `make widgets` builds afresh), and the script ends when its stdin closes, so it never outlives the
process that started it, however that process ends. It also starts the build again when vite.config.ts changes
(a scaffolded widget adds an entry there). No type check runs here: `make test` does it.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from widget_mcp.local.paths import REPO

WIDGETS = REPO / "widget_bundles"

SCRIPT = """
import { watchFile } from "node:fs";
import { build } from "vite";
let watcher = null;
let say = (ms) => `widgets: watching widget_bundles/src (built in ${ms} ms)`;
async function start() {
  watcher = await build({ build: { watch: {}, emptyOutDir: false } });
  watcher.on("event", (event) => {
    if (event.code !== "BUNDLE_END") return;
    console.log(say(event.duration));
    say = (ms) => `widgets: rebuilt in ${ms} ms`;
  });
}
await start();
// Vite reads its config once: a new entry (make app NAME=… WIDGET=1) needs a new build from the new config.
watchFile("vite.config.ts", { interval: 500 }, async (now, before) => {
  if (now.mtimeMs === before.mtimeMs) return;
  await watcher.close();
  say = (ms) => `widgets: rebuilt with the changed vite.config.ts in ${ms} ms`;
  await start();
});
const stop = () => watcher.close().finally(() => process.exit(0));
process.stdin.on("end", stop);
process.stdin.on("error", stop);
process.stdin.resume();
"""

STOP_SECONDS = 5


@dataclass
class WidgetWatch:
    """`proc` is None when the widgets are not watched, and `note` says why (for the banner)."""

    proc: subprocess.Popen[bytes] | None
    note: str

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        assert self.proc.stdin is not None
        self.proc.stdin.close()  # the script closes Vite's watcher and exits
        try:
            self.proc.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def start_widget_watch(manifest: Path, widgets: Path = WIDGETS) -> WidgetWatch:
    """Start Vite's watch build when the server reads the manifest it writes (`manifest` is WIDGET_MANIFEST)."""
    if manifest.resolve() != (widgets / "dist" / "manifest.json").resolve():
        return WidgetWatch(None, "widgets not watched (WIDGET_MANIFEST names another build)")
    if not (widgets / "node_modules" / "vite").is_dir():
        return WidgetWatch(None, "widgets not watched (no widget_bundles/node_modules: run `make widgets`)")
    node = shutil.which("node")
    if node is None:
        return WidgetWatch(None, "widgets not watched (no node on PATH)")
    proc = subprocess.Popen(  # noqa: S603 (node from PATH, our own script)
        [node, "--input-type=module", "-e", SCRIPT], cwd=widgets, stdin=subprocess.PIPE, stdout=None, stderr=None
    )
    return WidgetWatch(proc, "widgets (Vite rebuilds widget_bundles/src)")
