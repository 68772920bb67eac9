// Builds every widget entry into dist/ with content-hashed files, plus dist/manifest.json in the format the
// server reads: {"entries": {"<entry>": {"js": "...", "css": [...], "imports": [...]}}} (paths relative to dist/).
import { defineConfig, type Plugin } from "vite";

const ENTRIES = {
  display: "src/display/main.ts",
  "chess-board": "src/chess/main.ts",
  playground: "src/playground/main.ts",
};

interface ChunkLike {
  type: "chunk" | "asset";
  fileName: string;
  name?: string;
  isEntry?: boolean;
  imports?: string[];
  viteMetadata?: { importedCss: Set<string> };
}

function widgetManifest(): Plugin {
  return {
    name: "widget-manifest",
    generateBundle(_options, bundle) {
      const files = bundle as unknown as Record<string, ChunkLike>;
      const entries: Record<string, { js: string; css: string[]; imports: string[] }> = {};
      for (const chunk of Object.values(files)) {
        if (chunk.type !== "chunk" || !chunk.isEntry || !chunk.name) continue;
        const css = new Set<string>();
        const imports = new Set<string>();
        const visit = (file: string): void => {
          const node = files[file];
          if (!node) return;
          node.viteMetadata?.importedCss.forEach((c) => css.add(c));
          for (const dep of node.imports ?? []) {
            if (!imports.has(dep)) {
              imports.add(dep);
              visit(dep);
            }
          }
        };
        visit(chunk.fileName);
        entries[chunk.name] = { js: chunk.fileName, css: [...css].sort(), imports: [...imports].sort() };
      }
      const sorted = Object.fromEntries(Object.entries(entries).sort(([a], [b]) => a.localeCompare(b)));
      this.emitFile({ type: "asset", fileName: "manifest.json", source: `${JSON.stringify({ entries: sorted }, null, 2)}\n` });
    },
  };
}

export default defineConfig({
  base: "./",
  logLevel: "warn",
  plugins: [widgetManifest()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    cssCodeSplit: true,
    modulePreload: false,
    reportCompressedSize: false,
    rollupOptions: {
      input: ENTRIES,
      // The MCP SDK packages are pre-bundled barrels: treating them as side-effect free and zod's schema
      // builders as pure lets unused parts drop out (a few KB of gzip on every widget).
      treeshake: {
        moduleSideEffects: (id: string) => !id.includes("node_modules"),
        manualPureFunctions: ["z"],
      },
      output: {
        entryFileNames: "assets/[name]-[hash].js",
        chunkFileNames: "assets/shared-[hash].js",
        assetFileNames: "assets/[name]-[hash][extname]",
      },
    },
  },
});
