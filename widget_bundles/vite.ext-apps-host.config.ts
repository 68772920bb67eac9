// Builds the test-only MCP Apps reference host (tests/browser/ext_apps_host: a host page on the official ext-apps
// AppBridge and its sandbox proxy) into tests/browser/ext_apps_host/dist. Never part of dist/ (shipped to S3).
// Its sources live outside this package, so their bare imports are resolved as if imported from here: from
// this package's locked node_modules.
import { defineConfig, type Plugin } from "vite";

const here = (path: string): string => decodeURIComponent(new URL(`./${path}`, import.meta.url).pathname);

const ROOT = here("../tests/browser/ext_apps_host");
const IMPORTER = here("vite.ext-apps-host.config.ts");

function fromThisPackage(): Plugin {
  return {
    name: "resolve-from-widget-bundles",
    enforce: "pre",
    resolveId: {
      filter: { id: /^[\w@][^:]*$/ }, // bare specifiers only
      async handler(source, importer, options) {
        if (!importer?.startsWith(ROOT)) return null;
        return this.resolve(source, IMPORTER, { ...options, skipSelf: true });
      },
    },
  };
}

export default defineConfig({
  root: ROOT,
  base: "/",
  logLevel: "warn",
  publicDir: false,
  plugins: [fromThisPackage()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    modulePreload: false,
    reportCompressedSize: false,
    rolldownOptions: {
      input: { index: `${ROOT}/index.html`, sandbox: `${ROOT}/sandbox.html` },
      checks: { bundlerTimings: false }, // a slow build on a busy machine is not worth a warning here
    },
  },
});
