// The sandbox proxy, served from a second origin as in ext-apps' examples/basic-host: it creates the inner view
// frame, writes the template into it when the host sends `ui/notifications/sandbox-resource-ready`, and relays
// every other message between the host (parent) and the view (inner frame). The CSP is the HTTP header this page
// is served with (built by the test server from the host's ?csp=); the inner frame's document inherits it.
//
// For tests, it also records what happens in the view frame on `window.viewReport` (here and on the view's own
// window): CSP violations (`securitypolicyviolation`), uncaught errors and unhandled rejections.

import type {
  McpUiSandboxProxyReadyNotification,
  McpUiSandboxResourceReadyNotification,
} from "@modelcontextprotocol/ext-apps/app-bridge";

interface Violation {
  frame: "proxy" | "view";
  directive: string;
  blocked: string;
  source: string;
  sample: string;
}

interface ViewReport {
  violations: Violation[];
  errors: string[];
  written: boolean;
}

declare global {
  interface Window {
    viewReport: ViewReport;
  }
}

const ALLOWED_REFERRER = /^http:\/\/(localhost|127\.0\.0\.1)(:|\/|$)/;

if (window.self === window.top) throw new Error("This page is only to be used in an iframe sandbox.");
if (!document.referrer) throw new Error("No referrer, cannot validate the embedding site.");
if (!ALLOWED_REFERRER.test(document.referrer)) throw new Error(`Embedding site not allowed: ${document.referrer}`);

const HOST_ORIGIN = new URL(document.referrer).origin;
const OWN_ORIGIN = window.location.origin;

// Isolation self-test: the host is another origin, so touching its window must throw.
try {
  window.top!.alert("If you see this, the sandbox is not set up securely.");
  throw "FAIL";
} catch (e) {
  if (e === "FAIL") throw new Error("The sandbox is not set up securely.");
}

const report: ViewReport = { violations: [], errors: [], written: false };
window.viewReport = report;

function watch(target: Window, frame: Violation["frame"]): void {
  target.addEventListener(
    "securitypolicyviolation",
    (event) =>
      report.violations.push({
        frame,
        directive: event.effectiveDirective,
        blocked: event.blockedURI,
        source: event.sourceFile ? `${event.sourceFile}:${event.lineNumber}` : "",
        sample: event.sample,
      }),
    true,
  );
  target.addEventListener("error", (event) => report.errors.push(`${frame}: ${String(event.error ?? event.message)}`));
  target.addEventListener("unhandledrejection", (event) => report.errors.push(`${frame}: ${String(event.reason)}`));
}
watch(window, "proxy");

const inner = document.createElement("iframe");
inner.style.cssText = "width: 100%; height: 100%; border: none; display: block";
inner.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
inner.dataset.testid = "view-frame";
// The view fills the proxy, which the host sizes to the view's reported height: without a height on the root and
// the body, the view frame's 100% height resolves to an iframe's default 150 px.
document.documentElement.style.height = "100%";
Object.assign(document.body.style, { margin: "0", height: "100%" });
document.body.appendChild(inner);

const RESOURCE_READY: McpUiSandboxResourceReadyNotification["method"] = "ui/notifications/sandbox-resource-ready";
const PROXY_READY: McpUiSandboxProxyReadyNotification["method"] = "ui/notifications/sandbox-proxy-ready";

function allowAttribute(permissions?: { camera?: boolean; microphone?: boolean; geolocation?: boolean }): string {
  return (["camera", "microphone", "geolocation"] as const).filter((p) => permissions?.[p]).join("; ");
}

function writeView(html: string): void {
  // document.write keeps the inner document on this origin (as basic-host does, for WebGL), and it inherits
  // this page's CSP. open() clears a document's listeners, so the view is watched between open() and write().
  const doc = inner.contentDocument;
  const view = inner.contentWindow;
  if (!doc || !view) throw new Error("the view frame has no document");
  doc.open();
  watch(view, "view");
  view.viewReport = report;
  doc.write(html);
  doc.close();
  report.written = true;
}

window.addEventListener("message", (event) => {
  if (event.source === window.parent) {
    if (event.origin !== HOST_ORIGIN) {
      console.error("[sandbox] message from an unexpected origin:", event.origin);
      return;
    }
    if (event.data?.method === RESOURCE_READY) {
      const { html, sandbox, permissions } = event.data.params ?? {};
      if (typeof sandbox === "string") inner.setAttribute("sandbox", sandbox);
      const allow = allowAttribute(permissions);
      if (allow) inner.setAttribute("allow", allow);
      if (typeof html === "string") writeView(html);
    } else {
      inner.contentWindow?.postMessage(event.data, "*");
    }
  } else if (event.source === inner.contentWindow) {
    if (event.origin !== OWN_ORIGIN) {
      console.error("[sandbox] message from the view with an unexpected origin:", event.origin);
      return;
    }
    window.parent.postMessage(event.data, HOST_ORIGIN);
  }
});

window.parent.postMessage({ jsonrpc: "2.0", method: PROXY_READY, params: {} }, HOST_ORIGIN);
