import type { Plugin } from "vite";

// The MCP SDK packages build their zod schemas at module top level (`const XSchema = z.object({...}).extend(...)`).
// Bundlers cannot know those calls are pure, so every schema stays in every widget whether used or not. This
// marks them /*#__PURE__*/, so an unused schema drops out; a used one is built exactly as before.
// Only call chains rooted at zod (`z.…`) or at a schema (a `…Schema` import from the SDK, or a top-level
// const this pass already found to be a schema) are marked, and only those evaluated while the module loads
// (not calls inside functions). Methods with effects beyond building a new schema (parse, the global
// registry, config) are never marked.
const SDK_SCHEMA_MODULE = /[\\/]node_modules[\\/]@modelcontextprotocol[\\/](core|client|ext-apps)[\\/]dist[\\/]/;
// Built-ins that only read their arguments and return a new value (`new Set(Object.keys(XSchema.shape))`), and
// the client's bundled copy of the `content-type` package, whose CommonJS body only defines regexes and functions.
const PURE_BUILTINS = new Set(["Set", "Map", "WeakSet", "WeakMap", "Object.keys", "Object.values", "Object.entries",
  "require_content_type"]);
const NOT_PURE_METHODS = new Set(["parse", "parseAsync", "safeParse", "safeParseAsync", "spa", "encode", "decode",
  "encodeAsync", "decodeAsync", "safeEncode", "safeDecode", "safeEncodeAsync", "safeDecodeAsync", "register", "meta", "config",
  "globalRegistry", "add"]);

interface AstNode {
  type: string;
  start: number;
  end: number;
  [key: string]: unknown;
}

const isNode = (value: unknown): value is AstNode =>
  typeof value === "object" && value !== null && typeof (value as AstNode).type === "string";

const unwrap = (node: AstNode): AstNode =>
  node.type === "ParenthesizedExpression" || node.type === "ChainExpression" ? unwrap(node.expression as AstNode) : node;

// `@modelcontextprotocol/client` registers every spec and OAuth schema in two lookup tables (`specTypeSchemas`,
// `isSpecType`) with top-level loops, which keep all of them alive even in a bundle that never reads the tables.
// The loops only fill those two module-private objects, so running them as the first table is initialised
// (and before the second, which takes the first as an argument) is the same program, minus the tables when
// nothing reads them.
const SPEC_LOOPS =
  "for (const key of SPEC_SCHEMA_KEYS) register(key, schemas_exports[key]);\n" +
  "for (const [key, schema] of Object.entries(authSchemas)) register(key, schema);\n";
const SPEC_TABLES = "const specTypeSchemas = Object.freeze(_specTypeSchemas);";
const IS_SPEC_TABLE = "const isSpecType = Object.freeze(_isSpecType);";

export function pureSdkSchemas(): Plugin {
  return {
    name: "pure-sdk-schemas",
    apply: "build",
    transform(code, id) {
      if (!SDK_SCHEMA_MODULE.test(id)) return;
      const original = code;
      if (code.includes("const _specTypeSchemas = {};")) {
        if (code.includes(SPEC_LOOPS) && code.includes(SPEC_TABLES) && code.includes(IS_SPEC_TABLE)) {
          code = code
            .replace(SPEC_LOOPS, "")
            .replace(SPEC_TABLES, `const specTypeSchemas = /*#__PURE__*/ (() => {\n${SPEC_LOOPS}return Object.freeze(_specTypeSchemas);\n})();`)
            .replace(IS_SPEC_TABLE, "const isSpecType = /*#__PURE__*/ ((_filled) => Object.freeze(_isSpecType))(specTypeSchemas);");
        } else {
          this.warn(`${id}: the specTypeSchemas tables changed shape; every SDK schema stays in the bundle`);
        }
      }
      const program = this.parse(code) as unknown as { body: AstNode[] };
      const topLevelNames = new Set<string>(); // a module's own `Set` or `Object` would not be the built-in
      const ownFunctions = new Set<string>();
      const zodNames = new Set<string>();
      const schemaNames = new Set<string>();
      for (const stmt of program.body) {
        const decl = stmt.type === "ExportNamedDeclaration" && isNode(stmt.declaration) ? stmt.declaration : stmt;
        if (isNode(decl.id)) topLevelNames.add(decl.id.name as string);
        if (decl.type === "FunctionDeclaration" && isNode(decl.id)) ownFunctions.add(decl.id.name as string);
        for (const d of decl.type === "VariableDeclaration" ? (decl.declarations as AstNode[]) : []) {
          if ((d.id as AstNode).type === "Identifier") topLevelNames.add((d.id as AstNode).name as string);
        }
        if (stmt.type !== "ImportDeclaration") continue;
        const source = (stmt.source as { value: string }).value;
        for (const spec of stmt.specifiers as AstNode[]) {
          const local = (spec.local as { name: string }).name;
          topLevelNames.add(local);
          const imported = spec.type === "ImportSpecifier" ? (spec.imported as { name?: string; value?: string }) : null;
          const importedName = imported?.name ?? imported?.value ?? "";
          const sdk = /^(@modelcontextprotocol\/core|\.\/)/.test(source);
          if (/^zod(\/v4)?$/.test(source) && (spec.type === "ImportNamespaceSpecifier" || importedName === "z")) zodNames.add(local);
          else if (sdk && (/Schema$/.test(importedName) || /Schema$/.test(local))) schemaNames.add(local);
        }
      }
      // A call chain `root.a(…).b(…)` is marked when its root is zod or a schema and no method in it has effects.
      const chainRoot = (node: AstNode): AstNode | null => {
        node = unwrap(node);
        if (node.type === "Identifier") return node;
        if (node.type === "CallExpression") return chainRoot(node.callee as AstNode);
        if (node.type === "MemberExpression" && !node.computed) {
          if (NOT_PURE_METHODS.has((node.property as { name: string }).name)) return null;
          return chainRoot(node.object as AstNode);
        }
        return null;
      };
      const isSchemaCall = (node: AstNode): boolean => {
        if (node.type === "NewExpression" || node.type === "CallExpression") {
          const callee = unwrap(node.callee as AstNode);
          const name = code.slice(callee.start, callee.end);
          if (PURE_BUILTINS.has(name) && !topLevelNames.has(name.split(".")[0]!)) return true;
          // `const f = Object.assign(g, {...})` where nothing else names the function g: the mutation is only
          // seen through f.
          const target = (node.arguments as AstNode[])[0];
          if (name === "Object.assign" && !topLevelNames.has("Object") && target?.type === "Identifier") {
            const g = target.name as string;
            const mentions = code.match(new RegExp(`(?<![\\w$])${g.replace(/\$/g, "\\$")}(?![\\w$])`, "g"))?.length ?? 0;
            if (ownFunctions.has(g) && mentions === 2) return true;
          }
        }
        if (node.type !== "CallExpression") return false;
        const root = chainRoot(node.callee as AstNode);
        if (!root) return false;
        const name = root.name as string;
        if (code.slice(root.start, root.end) !== name) throw new Error(`pure-sdk-schemas: AST offsets do not match ${id}`);
        return zodNames.has(name) || schemaNames.has(name);
      };
      const edits: Array<{ at: number; rank: number; text: string }> = [];
      const visit = (node: AstNode, depth: number): void => {
        if (/Function|Class/.test(node.type)) return; // runs later, if at all: not part of loading the module
        if (isSchemaCall(node)) {
          edits.push({ at: node.start, rank: depth, text: "/*#__PURE__*/ " });
          const callee = unwrap(node.callee as AstNode);
          const inner = callee.type === "MemberExpression" ? unwrap(callee.object as AstNode) : null;
          if (inner && isSchemaCall(inner)) {
            // `/*#__PURE__*/ a().b()` would cover only the outer call: parenthesise the inner one to mark it too.
            edits.push({ at: inner.start, rank: depth + 0.5, text: "(" }, { at: inner.end, rank: -depth, text: ")" });
          }
        }
        const children = node.type === "SequenceExpression" ? (node.expressions as AstNode[]).slice(-1) : Object.values(node);
        for (const child of children) {
          for (const item of Array.isArray(child) ? child : [child]) if (isNode(item)) visit(item, depth + 1);
        }
      };
      for (const stmt of program.body) {
        const decl = stmt.type === "ExportNamedDeclaration" && isNode(stmt.declaration) ? stmt.declaration : stmt;
        if (decl.type !== "VariableDeclaration") continue;
        for (const declarator of decl.declarations as AstNode[]) {
          if (!isNode(declarator.init)) continue;
          visit(declarator.init, 0);
          const target = declarator.id as AstNode;
          if (target.type === "Identifier" && isSchemaCall(unwrap(declarator.init))) schemaNames.add(target.name as string);
        }
      }
      if (edits.length === 0) return code === original ? undefined : { code, map: null };
      edits.sort((a, b) => a.at - b.at || a.rank - b.rank);
      let out = "";
      let from = 0;
      for (const edit of edits) {
        out += code.slice(from, edit.at) + edit.text;
        from = edit.at;
      }
      return { code: out + code.slice(from), map: null };
    },
  };
}
