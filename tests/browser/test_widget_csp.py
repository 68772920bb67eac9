"""Widgets run under a strict Content-Security-Policy with zero violations, in every host mode: the playground's
frame applies a policy at least as strict as the MCP Apps reference host's, and the watch that fails every
browser test on a violation does see one."""

from __future__ import annotations

from browser_support import CspWatch, DevServer, widget
from playwright.sync_api import Page, Route, expect

ORIGIN = "http://csp-probe.test"
# What zod did at import time before the bundles made it jitless: probe whether eval is allowed.
PROBE = 'try { new Function(""); } catch (error) {} document.body.dataset.probed = "yes";'


def test_the_watch_reports_an_eval_probe_refused_by_a_strict_csp(page: Page, csp_watch: CspWatch) -> None:
    def serve(route: Route) -> None:
        if route.request.url.endswith("/probe.js"):
            route.fulfill(body=PROBE, content_type="text/javascript")
        else:
            html = f'<!doctype html><html><head><script src="{ORIGIN}/probe.js" defer></script></head><body></html>'
            csp = f"default-src 'none'; script-src {ORIGIN}"
            route.fulfill(body=html, content_type="text/html", headers={"content-security-policy": csp})

    page.route(f"{ORIGIN}/**", serve)
    page.goto(f"{ORIGIN}/")
    expect(page.locator("body")).to_have_attribute("data-probed", "yes")
    page.wait_for_function("() => window.__cspViolations.length > 0")
    (violation,) = csp_watch.violations(page)
    assert violation.startswith("script-src blocked eval")
    csp_watch.clear()


def test_the_widget_frame_is_as_strict_as_the_reference_host_and_no_eval_is_allowed(
    page: Page, dev_server: DevServer
) -> None:
    page.goto(dev_server.playground("display_demo", {"message": "strict"}))
    expect(widget(page).locator('[data-widget="text"]')).to_have_text("strict")
    csp = page.locator('[data-testid="widget-frame"]').get_attribute("data-csp") or ""
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["script-src"].split()[0] == dev_server.base  # the template's resourceDomains
    for keyword in ("'unsafe-eval'", "'unsafe-inline'", "'wasm-unsafe-eval'", "*", "data:", "blob:"):
        assert keyword not in directives["script-src"].split()
    # The policy is in the frame's document, first in its head, so it governs every script the widget loads.
    head = widget(page).locator("head > *").first
    expect(head).to_have_attribute("http-equiv", "Content-Security-Policy")
    expect(head).to_have_attribute("content", csp)
