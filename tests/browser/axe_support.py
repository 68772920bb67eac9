"""axe-core (widget_bundles' devDependency, never in a bundle) run inside a widget frame.

The script is evaluated through the DevTools protocol, which the frame's CSP does not govern (a `<script>` tag
would be refused by `script-src` and counted as a violation), so the widget runs under its real CSP while axe
checks it. Only serious and critical findings fail a test; the failure names each rule, its targets and help.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from browser_support import ROOT, widget_frame
from playwright.sync_api import Frame, Page

AXE = ROOT / "widget_bundles" / "node_modules" / "axe-core" / "axe.min.js"
FAILING = ("serious", "critical")


@cache
def _axe_source() -> str:
    if not AXE.is_file():
        raise AssertionError(f"axe-core is not installed ({AXE} is missing): run `make widgets`")
    return AXE.read_text()


def axe_violations(frame: Frame) -> list[dict[str, Any]]:
    """Every axe violation in the frame's document as it is now (all rules axe runs by default)."""
    if not frame.evaluate("() => typeof window.axe === 'object'"):
        frame.evaluate(_axe_source())
        # By default axe does not judge the contrast of text that is only symbols or one character long (it
        # reports it as "needs review"): that is every chess piece and board coordinate. Judge them too.
        frame.evaluate(
            """() => {
                const options = { ...window.axe._audit.checks["color-contrast"].options };  // configure replaces them
                options.ignoreUnicode = false;
                options.ignoreLength = true;
                window.axe.configure({ checks: [{ id: "color-contrast", options }] });
            }"""
        )
    violations: list[dict[str, Any]] = frame.evaluate(
        """async () => {
            // No preload: axe's CSSOM preload re-creates the frame's stylesheets as inline <style>s, which the
            // widget CSP refuses (and every refusal fails the test); it only feeds css-orientation-lock.
            const result = await window.axe.run(document, { resultTypes: ["violations"], preload: false });
            return result.violations.map((v) => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map((n) => ({ target: n.target.join(" "), summary: n.failureSummary })),
            }));
        }"""
    )
    return violations


def describe(violations: list[dict[str, Any]]) -> str:
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']}")
        lines.extend(f"    {n['target']}: {(n['summary'] or '').replace(chr(10), ' ')}" for n in v["nodes"][:8])
        if len(v["nodes"]) > 8:
            lines.append(f"    … and {len(v['nodes']) - 8} more")
    return "\n".join(lines)


def assert_accessible(page: Page, what: str) -> None:
    """No serious or critical axe violation in the widget frame of the page, described as `what`."""
    found = [v for v in axe_violations(widget_frame(page)) if v["impact"] in FAILING]
    assert not found, f"axe found serious or critical violations in {what}:\n{describe(found)}"
