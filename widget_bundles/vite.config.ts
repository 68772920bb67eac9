// Builds every widget entry into dist/ with content-hashed files, plus dist/manifest.json in the format the
// server reads: {"entries": {"<entry>": {"js": "...", "css": [...], "imports": [...]}}} (paths relative to dist/).
import { defineConfig } from "vite";
import { hashedNames, WIDGET_BUILD, widgetPlugins } from "./plugins/widget-build.ts";

const preact = (path: string): string => decodeURIComponent(new URL(`./node_modules/preact/${path}`, import.meta.url).pathname);

const local = (path: string): string => decodeURIComponent(new URL(`./${path}`, import.meta.url).pathname);

const ENTRIES = {
  display: "src/display/main.ts",
  "chess-board": "src/chess/main.ts",
  form: "src/form/main.ts",
  playground: "src/playground/main.ts",
};

const RUNTIME_MODULE =
  /node_modules[\\/](@modelcontextprotocol[\\/](core|client)[\\/]|@modelcontextprotocol[\\/]ext-apps[\\/]dist[\\/]src[\\/]app\.js|zod[\\/])|[\\/]src[\\/]shared[\\/]/;

export default defineConfig({
  base: "./",
  logLevel: "warn",
  plugins: widgetPlugins(),
  // The form widget's RJSF is written against React; Preact's compat layer runs it for a fraction of the size.
  // Preact is taken from its unminified sources: its minified build names its diff function `z`, which the
  // `manualPureFunctions: ["z"]` hint we used for zod dropped (rendering nothing). pureSdkSchemas above
  // replaced that hint and touches only the SDK packages.
  resolve: {
    alias: [
      { find: /^react-dom\/client$/, replacement: preact("compat/client.mjs") },
      { find: /^(react|react-dom|preact\/compat)$/, replacement: preact("compat/src/index.js") },
      { find: /^(react|preact)\/jsx-(dev-)?runtime$/, replacement: preact("jsx-runtime/src/index.js") },
      { find: /^preact\/hooks$/, replacement: preact("hooks/src/index.js") },
      { find: /^preact$/, replacement: preact("src/index.js") },
      // RJSF's markdown rendering, replaced by plain text (src/form/plain-text.ts says why).
      { find: /^markdown-to-jsx(\/react)?$/, replacement: local("src/form/plain-text.ts") },
      { find: /^fast-uri$/, replacement: local("src/form/uri.ts") },
    ],
  },
  build: {
    ...WIDGET_BUILD,
    rollupOptions: {
      input: ENTRIES,
      // RJSF marks its hooks "use client" (a React Server Components hint, meaningless in a widget bundle).
      onwarn(warning, warn) {
        if (warning.code !== "MODULE_LEVEL_DIRECTIVE") warn(warning);
      },
      // The MCP SDK packages are pre-bundled barrels: treating them as side-effect free lets unused parts drop
      // out (with pureSdkSchemas, for their schemas). Preact installs its hooks and compat layer by assigning
      // to `options` when its modules load: keep those.
      treeshake: {
        moduleSideEffects: (id: string) => !id.includes("node_modules") || /node_modules[\\/]preact[\\/]/.test(id),
      },
      output: {
        // One chunk for the runtime every widget loads (ext-apps' App, the SDK, zod, src/shared and its CSS):
        // gzip compresses it better as one file than as the two it is otherwise split into. The playground
        // loads it too (it shares the SDK and src/shared), App included.
        codeSplitting: {
          groups: [{ name: "runtime", test: RUNTIME_MODULE }],
        },
        ...hashedNames("shared"),
      },
    },
  },
});
