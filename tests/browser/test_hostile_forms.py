"""Hostile forms in the form widget: the model-written schemas and uiSchemas of hostile_forms.json, delivered to
the widget as a tool result, in the playground and in the official AppBridge host. They reach it directly (the
playground's preview, the host's `result`), as from a server that let them through or a host that relays another
server's results: the widget defends itself whatever the server refuses.

- `links`: nothing in the drawn form bears a `javascript:`/`data:`/`blob:`/`file:` URL, an inline event handler,
  `srcdoc`, a frame or a link, and clicking everything that can be clicked, then Send, runs nothing: no flag set
  by a payload, no dialog, no navigation to such a URL, no CSP violation. In the host, the view runs under a CSP
  that allows inline script and `javascript:` URLs (as ext-apps' basic-host does), so a link that got through
  would run, not just be blocked.
- `work`: the widget answers within a bound: it draws the form and hands the answers to the server (with a note
  when it checked nothing itself), or says the form is too complex to show. Nothing here times the widget: a
  freeze shows as the bounded wait for its answer running out.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import DevServer, click_in_widget, frozen_pages_killed_after, settled, widget, widget_frame
from ext_apps_host_support import (
    ExtAppsHost,
    assert_view_ran_clean,
    ext_apps_host,
    open_in_host,
    proxy_frame,
    view_frame,
)
from playwright.sync_api import Dialog, Frame, FrameLocator, Page, expect

CORPUS: dict[str, list[dict[str, Any]]] = json.loads((Path(__file__).parent / "hostile_forms.json").read_text())
LINKS = CORPUS["links"]
WORK = CORPUS["work"]
# How long the widget may take to answer, on a loaded machine: its usual answer takes a second or two, a frozen
# widget never answers.
BOUND_MS = 20_000
_CLICKED = ("a", "button:not([type=submit])", "[role=button]", "input[type=checkbox]", "input[type=radio]")
CLICKABLE = ", ".join(f"#root {what}" for what in _CLICKED)
UNSAFE_URL = r"^(javascript|data|vbscript|blob|file):"

# Everything in the widget's document that could carry or run a URL or markup the model wrote.
_SCAN = """(unsafe) => {
  const scheme = new RegExp(unsafe, "i");
  const urls = new Set(["href", "src", "srcset", "action", "formaction", "xlink:href", "data", "poster", "background",
                        "ping", "cite", "codebase", "manifest"]);
  const bare = (value) => value.replace(/[\\u0000-\\u0020]/g, "");
  const found = [];
  const where = (node) => `${node.tagName.toLowerCase()}#${node.id || "-"}`;
  for (const node of document.querySelectorAll("*")) {
    for (const attr of node.attributes) {
      if (urls.has(attr.name) && scheme.test(bare(attr.value))) found.push(`${where(node)} ${attr.name}=${attr.value}`);
      if (/^on/i.test(attr.name)) found.push(`${where(node)} handler ${attr.name}`);
      if (attr.name === "srcdoc" || (attr.name === "style" && /url\\(/i.test(attr.value))) {
        found.push(`${where(node)} ${attr.name}=${attr.value}`);
      }
    }
  }
  // The values a URL-bearing field holds or suggests (a text field's value is text, whatever it says).
  const valued = "input[type=url], input[type=hidden], input[type=file], datalist option";
  for (const node of document.querySelectorAll(valued)) {
    if (scheme.test(bare(node.value))) found.push(`${where(node)} value ${node.value}`);
  }
  const root = document.getElementById("root");
  const drawn = "a, img, svg, iframe, frame, object, embed, base, script, link, style";
  for (const node of root ? root.querySelectorAll(drawn) : []) {
    found.push(`${where(node)} inside the form: ${node.outerHTML.slice(0, 120)}`);
  }
  return found;
}"""


def case_id(case: dict[str, Any]) -> str:
    return str(case["name"])


def form_result(case: dict[str, Any]) -> dict[str, Any]:
    """The case as ask_question's result would carry it."""
    form = {
        "type": "dgui_form",
        "formId": f"hostile-{case['name']}",
        "title": case["name"],
        "description": case["why"],
        "schema": case["schema"],
        "uiSchema": case.get("uiSchema", {}),
        "metadata": {"version": "0.1"},
    }
    return {"content": [{"type": "text", "text": "A form to fill in."}], "structuredContent": form, "isError": False}


class Watch:
    """What a payload that ran would leave behind on the page: dialogs, navigations to unsafe URLs, new pages."""

    def __init__(self, page: Page) -> None:
        self.dialogs: list[str] = []
        self.navigations: list[str] = []
        self.popups: list[str] = []
        page.on("dialog", self._dialog)
        page.on("framenavigated", lambda frame: self.navigations.append(frame.url))
        page.context.on("page", lambda other: self.popups.append(other.url))

    def _dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def assert_nothing_ran(self, frames: list[Frame]) -> None:
        assert self.dialogs == []
        assert self.popups == []
        unsafe = ("javascript", "data", "blob", "file")
        assert [url for url in self.navigations if url.split(":")[0].lower() in unsafe] == []
        for frame in frames:
            assert frame.evaluate("() => window.__pwned") is None, f"a payload ran in {frame.url[:80]}"


def click_everything_then_send(page: Page, view: FrameLocator, frame: str, document: Callable[[], Frame]) -> None:
    """Checks the drawn form (`document`: the widget's frame), then clicks each link, button and choice it has, and
    Send; `frame` (the selector of the frame the host sizes to the widget) is left to settle before each click,
    which lands where it was aimed."""
    expect(view.locator(".wm-form form")).to_be_visible(timeout=BOUND_MS)
    assert_clean_dom(document())  # before a click removes what it found (a file's Remove button)
    targets = view.locator(CLICKABLE)
    for index in range(targets.count()):
        target = targets.nth(index)  # a click may remove what follows (a file's Remove button)
        settled(page, frame)
        if target.is_visible() and target.is_enabled():
            target.click(timeout=5_000)
    settled(page, frame)
    view.locator("button[type=submit]").click()
    # The widget answers: the server's verdict (it has no such form), or its own under a field the clicks left
    # invalid (an empty item added to a list of URLs).
    expect(view.locator('[data-testid="form-message"], .error-detail').first).to_be_visible(timeout=BOUND_MS)


def assert_clean_dom(frame: Frame) -> None:
    found: list[str] = frame.evaluate(_SCAN, UNSAFE_URL)
    assert found == []


def assert_answers_in_bounded_time(page: Page, view: FrameLocator, frame: str, case: dict[str, Any]) -> None:
    """The widget's answer to a costly schema, within the bound: not drawn (too complex, or `not_drawn`: a schema
    RJSF itself refuses, such as a `$ref` to itself), or drawn and handed to the server (Send pressed once `frame`,
    the selector of the frame the host sizes to the widget, has settled)."""
    if case["expect"] == "not_drawn":
        expect(view.locator('[data-testid="form-message"]')).to_be_visible(timeout=BOUND_MS)
        expect(view.locator("form")).to_have_count(0)
        return
    if case["expect"] == "too_complex":
        message = view.locator('[data-testid="form-message"]')
        expect(message).to_have_attribute("data-code", "too_complex", timeout=BOUND_MS)
        expect(message).to_contain_text("too complex to show")
        expect(view.locator("form")).to_have_count(0)
        return
    submit = view.locator("button[type=submit]")
    expect(submit).to_be_enabled(timeout=BOUND_MS)
    settled(page, frame)
    submit.click(timeout=BOUND_MS)
    expect(view.locator('.wm-form[data-state="error"] [data-testid="form-message"]')).to_contain_text(
        "No form", timeout=BOUND_MS
    )
    note = view.locator('[data-testid="form-left-to-server"]')
    expect(note).to_have_count(1 if case["expect"] == "left_to_server" else 0)


@pytest.fixture(autouse=True)
def watchdog() -> Iterator[None]:
    """A widget frozen by a regression fails its test rather than hanging the run."""
    with frozen_pages_killed_after(120):
        yield


@pytest.fixture(scope="module")
def host() -> Iterator[ExtAppsHost]:
    with ext_apps_host("hostile-forms-state") as running:
        yield running


def open_in_inline_script_host(page: Page, host: ExtAppsHost, case: dict[str, Any]) -> FrameLocator:
    result = json.dumps(form_result(case), separators=(",", ":"))
    return open_in_host(page, host, "ask_question", {}, "legacy", result=result, sandbox=f"{host.sandbox_url}?inline=1")


@pytest.mark.parametrize("case", LINKS, ids=case_id)
def test_a_hostile_form_in_the_playground_draws_no_link_and_runs_nothing_when_everything_is_clicked(
    page: Page, dev_server: DevServer, case: dict[str, Any]
) -> None:
    watch = Watch(page)
    page.goto(dev_server.preview("form", form_result(case)))
    view = widget(page)
    click_everything_then_send(page, view, '[data-testid="widget-frame"]', lambda: widget_frame(page))
    frame = widget_frame(page)
    assert_clean_dom(frame)
    watch.assert_nothing_ran([frame, page.main_frame])


@pytest.mark.parametrize("case", LINKS, ids=case_id)
def test_a_hostile_form_in_a_host_that_allows_inline_script_draws_no_link_and_runs_nothing(
    page: Page, host: ExtAppsHost, case: dict[str, Any]
) -> None:
    watch = Watch(page)
    view = open_in_inline_script_host(page, host, case)
    click_everything_then_send(page, view, "#view", lambda: view_frame(page))
    assert_clean_dom(view_frame(page))
    watch.assert_nothing_ran([view_frame(page), proxy_frame(page), page.main_frame])
    assert_view_ran_clean(page)


@pytest.mark.parametrize("case", WORK, ids=case_id)
def test_a_costly_schema_in_the_playground_is_answered_in_bounded_time(
    page: Page, dev_server: DevServer, case: dict[str, Any]
) -> None:
    page.goto(dev_server.preview("form", form_result(case)))
    assert_answers_in_bounded_time(page, widget(page), '[data-testid="widget-frame"]', case)


@pytest.mark.parametrize("case", WORK, ids=case_id)
def test_a_costly_schema_in_the_appbridge_host_is_answered_in_bounded_time(
    page: Page, host: ExtAppsHost, case: dict[str, Any]
) -> None:
    result = json.dumps(form_result(case), separators=(",", ":"))
    view = open_in_host(page, host, "ask_question", {}, "legacy", result=result)
    assert_answers_in_bounded_time(page, view, "#view", case)
    assert_view_ran_clean(page)


def test_a_catastrophic_pattern_asked_through_the_server_is_checked_there_and_its_verdict_shown_under_the_field(
    page: Page, dev_server: DevServer
) -> None:
    """The same pattern, asked for real: the widget sends the answer unchecked, and the server, which matches
    patterns under a timeout, says under the field that it could not check it."""
    field = {"type": "string", "title": "Code", "pattern": "^(a|a)*$", "default": "a" * 40 + "!"}
    page.goto(dev_server.playground("ask_question", {"question": {"type": "object", "properties": {"code": field}}}))
    view = widget(page)
    submit = view.locator("button[type=submit]")
    expect(submit).to_be_enabled(timeout=BOUND_MS)
    click_in_widget(page, submit)
    expect(view.locator(".form-group:has(#root_code) .error-detail")).to_contain_text(
        "could not be checked", timeout=BOUND_MS
    )
    expect(view.locator(".wm-form")).to_have_attribute("data-state", "error")
