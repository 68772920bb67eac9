import type { Plugin } from "vite";

// src/shared/zod-jitless.ts must run before any MCP SDK module builds a zod schema (it says why). Every entry
// imports it first, so it comes first in ES module evaluation order; this check fails the build if chunking
// ever breaks that: a chunk holding SDK modules must hold the jitless module ahead of them (a chunk's
// `moduleIds` are in execution order), or import, directly or not, the chunk that holds it (a chunk's static
// imports run before its own code). Every entry must reach it too.
const JITLESS = /[\\/]src[\\/]shared[\\/]zod-jitless\.ts$/;
const SCHEMA_MODULE = /[\\/]node_modules[\\/]@modelcontextprotocol[\\/]/;

interface ChunkLike {
  type: "chunk" | "asset";
  fileName: string;
  isEntry?: boolean;
  imports?: string[];
  moduleIds?: string[];
}

export function zodJitlessFirst(): Plugin {
  return {
    name: "zod-jitless-first",
    apply: "build",
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle as unknown as Record<string, ChunkLike>).filter((c) => c.type === "chunk");
      const home = chunks.find((c) => c.moduleIds?.some((id) => JITLESS.test(id)));
      if (!home) {
        this.error("zod-jitless-first: src/shared/zod-jitless.ts is in no chunk; import it first in every entry");
      }
      const byName = new Map(chunks.map((c) => [c.fileName, c]));
      const reachesHome = (chunk: ChunkLike, seen = new Set<string>()): boolean => {
        if (chunk === home) return true;
        seen.add(chunk.fileName);
        return (chunk.imports ?? []).some((file) => {
          const next = byName.get(file);
          return next !== undefined && !seen.has(file) && reachesHome(next, seen);
        });
      };
      for (const chunk of chunks) {
        const ids = chunk.moduleIds ?? [];
        const firstSchema = ids.findIndex((id) => SCHEMA_MODULE.test(id));
        if (chunk === home && firstSchema >= 0 && firstSchema < ids.findIndex((id) => JITLESS.test(id))) {
          this.error(`zod-jitless-first: ${chunk.fileName} runs ${ids[firstSchema]} before src/shared/zod-jitless.ts`);
        }
        if ((firstSchema >= 0 || chunk.isEntry) && !reachesHome(chunk)) {
          this.error(`zod-jitless-first: ${chunk.fileName} does not load src/shared/zod-jitless.ts first`);
        }
      }
    },
  };
}
