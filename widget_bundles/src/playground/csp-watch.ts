// Reports every Content-Security-Policy violation in the widget frame to the playground, which lists them under
// the widget: strict hosts report each one, so a widget should cause none. A small script the playground puts
// first in the template's <head>, right after the CSP (allowed by its hash, like the window.openai script), so
// its listener is there before any of the widget's own scripts run. It only listens and posts; the widget sees
// nothing of it.

import { isRecord } from "../shared/dom";

export const CSP_WATCH_SCRIPT = `window.addEventListener("securitypolicyviolation", (event) => {
  window.parent.postMessage({ __cspViolation: {
    directive: String(event.effectiveDirective),
    blocked: String(event.blockedURI),
    source: event.sourceFile ? event.sourceFile + ":" + event.lineNumber : "",
  } }, "*");
}, true);`;

export interface CspViolation {
  directive: string;
  blocked: string;
  source: string;
}

export function describeViolation(v: CspViolation): string {
  return `${v.directive} blocked ${v.blocked || "-"}${v.source ? ` (${v.source})` : ""}`;
}

/** Calls `report` for each violation the frame posts. Only messages from `frame` are read. */
export function watchCsp(frame: Window, report: (violation: CspViolation) => void): () => void {
  const listener = (event: MessageEvent): void => {
    if (event.source !== frame || !isRecord(event.data) || !isRecord(event.data.__cspViolation)) return;
    const v = event.data.__cspViolation;
    report({ directive: String(v.directive ?? ""), blocked: String(v.blocked ?? ""), source: String(v.source ?? "") });
  };
  window.addEventListener("message", listener);
  return () => window.removeEventListener("message", listener);
}
