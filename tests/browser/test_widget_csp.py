"""Widgets run under a strict Content-Security-Policy with zero violations, in every host mode: the playground's
frame applies a policy at least as strict as the MCP Apps reference host's, and the watch that fails every
browser test on a violation does see one, in a page and in a widget frame. (That the bundles cause none is what
every widget test checks: before zod was made jitless, each widget load was one `script-src blocked eval`.)"""

from __future__ import annotations

import re

import pytest
from browser_support import PLAYGROUND_VIOLATIONS, CspWatch, DevServer, widget
from playwright.sync_api import Page, Route, expect

ORIGIN = "http://csp-probe.test"
# What zod did while the SDK's modules loaded, before the bundles made it jitless: probe whether eval is allowed.
PROBE = 'try { new Function(""); } catch (error) {}\n'


def test_the_watch_reports_an_eval_probe_refused_by_a_page_csp(page: Page, csp_watch: CspWatch) -> None:
    def serve(route: Route) -> None:
        if route.request.url.endswith("/probe.js"):
            route.fulfill(body=PROBE + 'document.body.dataset.probed = "yes";', content_type="text/javascript")
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
    csp_watch.clear(page)


@pytest.mark.parametrize("host", ["mcp-apps", "chatgpt"])
def test_a_widget_that_breaks_its_csp_is_listed_by_the_playground_and_seen_by_the_watch(
    page: Page, dev_server: DevServer, csp_watch: CspWatch, host: str
) -> None:
    def with_blocked_image(route: Route) -> None:
        # The template as the playground reads it, with an image from an origin its CSP does not list.
        body = route.request.post_data_json
        if not isinstance(body, dict) or body.get("method") != "resources/read":
            route.continue_()
            return
        answer = route.fetch()
        read = answer.json()
        html = read["result"]["contents"][0]["text"]
        read["result"]["contents"][0]["text"] = html.replace("<body>", f'<body><img src="{ORIGIN}/pixel.png" alt="">')
        route.fulfill(response=answer, json=read)

    page.route("**/mcp", with_blocked_image)
    page.goto(dev_server.playground("display_demo", {"message": "blocked"}, host=host))
    expect(widget(page).locator('[data-widget="text"]')).to_have_text("blocked")
    listed = page.locator(PLAYGROUND_VIOLATIONS)
    expect(listed).to_have_text([re.compile(rf"^CSP violation: img-src blocked {re.escape(ORIGIN)}/pixel\.png")])
    assert f"img-src blocked {ORIGIN}/pixel.png" in csp_watch.violations(page)[-1]
    csp_watch.clear(page)


@pytest.mark.parametrize("host", ["mcp-apps", "chatgpt"])
def test_the_widget_frame_is_as_strict_as_the_reference_host_and_no_eval_is_allowed(
    page: Page, dev_server: DevServer, host: str
) -> None:
    page.goto(dev_server.playground("display_demo", {"message": "strict"}, host=host))
    expect(widget(page).locator('[data-widget="text"]')).to_have_text("strict")
    csp = page.locator('[data-testid="widget-frame"]').get_attribute("data-csp") or ""
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["default-src"] == "'none'"
    sources = directives["script-src"].split()
    assert sources[0] == dev_server.base  # the template's resourceDomains
    # Nothing else but the playground's own inline scripts, each by its hash.
    assert all(s.startswith("'sha256-") for s in sources[1:])
    # The policy is in the frame's document, first in its head, so it governs every script the widget loads.
    head = widget(page).locator("head > *").first
    expect(head).to_have_attribute("http-equiv", "Content-Security-Policy")
    expect(head).to_have_attribute("content", csp)
    expect(page.locator(PLAYGROUND_VIOLATIONS)).to_have_count(0)
