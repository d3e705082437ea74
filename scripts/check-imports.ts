#!/usr/bin/env bun
// Checks the import graph of src/: no import cycles, and the layers point one way
// (ARCHITECTURE.md, rule 1). Run by CI (.ci/run) and by `bun run check:imports`.
//
//   - core/, db/, http/ and adapters/ never import from features/, with two exceptions:
//     db/schema.ts (drizzle's input re-exports every feature's tables) and http/auth.ts (the
//     bearer check calls the auth service).
//   - A feature's rules (every file of a feature that is not routes, schemas, views or a test)
//     never import http/ or Elysia.
//   - features/mcp/ is the second transport beside the routes (the MCP endpoint): its files are
//     handlers, so they may import http/'s conventions, but only its routes.ts imports Elysia, and
//     nothing but app.ts imports it (and db/schema.ts its tables, as every feature's).
//   - web/ (the HTML pages) sits beside the features' routes: it may import core/, http/ and the
//     features' services and views, never a feature's routes or handlers, and nothing but app.ts
//     imports it (so no feature depends on the pages).
//   - A feature never reads another feature's tables: it calls that feature's service. No module
//     of features/ or web/ takes a table object (an `export const x = sqliteTable(...)` of a
//     tables file) from another feature's tables file, nor any table from db/schema.ts; no module
//     but db/schema.ts re-exports a table object (so no service hands its tables out); and no
//     feature's raw SQL names another feature's table. Constants and types of a tables file (the
//     enums such as POST_TYPES) are shared freely: they read nothing. TABLE_READS_ALLOWED lists
//     the exceptions, each with its reason.
//   - No cycles among the modules of src/ (type-only imports included: they still tie modules).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const SRC = join(ROOT, "src");

function files(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) files(path, out);
    else if (/\.tsx?$/.test(entry) && !/\.test\.tsx?$/.test(entry) && !entry.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

const transpilers = { ts: new Bun.Transpiler({ loader: "ts" }), tsx: new Bun.Transpiler({ loader: "tsx" }) };

/** Resolves a relative import to a file of src/, or null for packages and non-code files. */
function resolveImport(from: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")]) {
    try {
      if (statSync(candidate).isFile() && /\.tsx?$/.test(candidate)) return candidate;
    } catch {}
  }
  return null;
}

/** Every import of a file, type-only ones included (scanImports drops those, so read them too). */
function importsOf(path: string): { spec: string }[] {
  const source = readFileSync(path, "utf8").replace(/^#!.*\n/, "");
  const specs = new Set(transpilers[path.endsWith(".tsx") ? "tsx" : "ts"].scanImports(source).map((i) => i.path));
  for (const m of source.matchAll(/^\s*(?:import|export)\s+type\s[^;]*?from\s+["']([^"']+)["']/gm)) specs.add(m[1]);
  for (const m of source.matchAll(/^\s*import\s*\{[^}]*\}\s*from\s+["']([^"']+)["']/gm)) specs.add(m[1]);
  return [...specs].map((spec) => ({ spec }));
}

/** Test support beside the features (seeding state for tests), not rules: exempt from the table rule. */
const isTestSupport = (r: string) => /(^|\/)([\w-]+-)?(fixtures|testkit)\.ts$/.test(r);

/**
 * The exceptions to the table rule, as "file -> table" (the table's SQL name). Each is a read the
 * owner's service does not offer yet; the reason says why it stays for now.
 */
const TABLE_READS_ALLOWED: Record<string, string> = {
  "features/moderation/queue-service.ts -> colony_mod_log":
    "finds the audit row of the ban it just wrote in the same transaction (colonies' banUser returns the ban, not its audit id)",
};

/** The feature (features/<name>/…) or top-level folder a module of src/ belongs to. */
const ownerOf = (r: string) => (r.startsWith("features/") ? r.split("/")[1] : r.split("/")[0]);

/** The table objects each tables file declares: export name -> SQL name. */
function tablesOf(path: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of readFileSync(path, "utf8").matchAll(/^export const (\w+) = sqliteTable\(\s*"([^"]+)"/gm)) out.set(m[1], m[2]);
  return out;
}

interface Binding {
  /** The exported name taken (`*` for a namespace import or `export *`). */
  name: string;
  typeOnly: boolean;
  reexport: boolean;
}

/** The runtime and type bindings every import and re-export statement of a module takes, by specifier. */
function bindingsOf(source: string): { spec: string; bindings: Binding[] }[] {
  const out: { spec: string; bindings: Binding[] }[] = [];
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  for (const m of code.matchAll(/(?:^|;|\n)\s*(import|export)\s+(type\s+)?([\w$*{},\s]*?)\s*from\s*["']([^"']+)["']/g)) {
    const reexport = m[1] === "export";
    const allTypes = !!m[2];
    const clause = m[3];
    const bindings: Binding[] = [];
    const braces = clause.match(/\{([^}]*)\}/);
    if (braces)
      for (const part of braces[1].split(",").map((x) => x.trim()).filter(Boolean)) {
        const typeOnly = allTypes || part.startsWith("type ");
        bindings.push({ name: part.replace(/^type\s+/, "").split(/\s+as\s+/)[0].trim(), typeOnly, reexport });
      }
    const rest = clause.replace(/\{[^}]*\}/, "").replace(/,/g, " ").trim();
    if (rest.startsWith("*")) bindings.push({ name: "*", typeOnly: allTypes, reexport });
    else if (rest) bindings.push({ name: "default", typeOnly: allTypes, reexport });
    out.push({ spec: m[4], bindings });
  }
  return out;
}

/**
 * The table rule (ARCHITECTURE.md, rule 1: a feature never reads another feature's tables, it calls
 * that feature's service).
 */
function tableViolations(all: string[], rel: (p: string) => string): string[] {
  const violations: string[] = [];
  const tableFiles = new Map<string, Map<string, string>>();
  for (const f of all) if (/(^|\/)([\w-]+-)?tables\.ts$/.test(rel(f))) tableFiles.set(f, tablesOf(f));
  const sqlOwner = new Map<string, string>();
  for (const [f, tables] of tableFiles) for (const name of tables.values()) sqlOwner.set(name, ownerOf(rel(f)));
  const schema = join(SRC, "db/schema.ts");
  const schemaTables = new Map<string, string>();
  for (const tables of tableFiles.values()) for (const [k, v] of tables) schemaTables.set(k, v);
  const allowed = (r: string, table: string) => `${r} -> ${table}` in TABLE_READS_ALLOWED;
  const transpiler = new Bun.Transpiler({ loader: "tsx" });

  for (const file of all) {
    const r = rel(file);
    const layer = r.split("/")[0];
    const reader = layer === "features" || layer === "web";
    if (r === "db/schema.ts" || isTestSupport(r)) continue;
    const source = readFileSync(file, "utf8");
    for (const { spec, bindings } of bindingsOf(source)) {
      const target = resolveImport(file, spec);
      if (!target) continue;
      const t = rel(target);
      const tables = target === schema ? schemaTables : tableFiles.get(target);
      if (!tables?.size) continue;
      const own = target !== schema && ownerOf(t) === ownerOf(r);
      for (const b of bindings) {
        if (b.typeOnly) continue;
        // A namespace (`* as x`, `export *`) takes every table of the file: reported once, as "*".
        const taken = b.name === "*" ? ["*"] : tables.has(b.name) ? [tables.get(b.name)!] : [];
        for (const table of taken) {
          if (b.reexport) {
            if (!allowed(r, table)) violations.push(`${r} re-exports ${table === "*" ? "the tables" : `the table ${table}`} of ${t} (only db/schema.ts hands tables out)`);
            continue;
          }
          if (!reader || own || allowed(r, table)) continue;
          // A tables file may name another feature's table in a foreign key: that declares the schema, it reads nothing.
          if (/tables\.ts$/.test(r) && t !== "db/schema.ts") continue;
          violations.push(`${r} takes ${table === "*" ? "every table" : `the table ${table}`} from ${t} (a feature reads another feature's tables through its service)`);
        }
      }
    }
    // Raw SQL naming another feature's table (comments stripped by the transpiler, strings kept).
    if (!reader) continue;
    let code: string;
    try {
      code = transpiler.transformSync(source);
    } catch {
      continue;
    }
    const seen = new Set<string>();
    for (const m of code.matchAll(/\b(?:from|join|update|into)\s+["'`]?([a-z_][a-z0-9_]*)\b/gi)) {
      const table = m[1];
      const owner = sqlOwner.get(table);
      if (!owner || !tableOwnedByFeature(owner) || owner === ownerOf(r) || seen.has(table) || allowed(r, table)) continue;
      seen.add(table);
      violations.push(`${r} names the table ${table} of features/${owner}/ in raw SQL (a feature reads another feature's tables through its service)`);
    }
  }
  return violations;
}

/** Tables outside features/ (core/, adapters/) belong to the layers below, which every feature may use. */
const tableOwnedByFeature = (owner: string) => !["core", "adapters", "db"].includes(owner);

export interface Report {
  cycles: string[][];
  violations: string[];
}

export function checkImports(): Report {
  const all = files(SRC);
  const rel = (p: string) => relative(SRC, p);
  const graph = new Map<string, string[]>();
  const violations: string[] = [];
  for (const file of all) {
    const r = rel(file);
    const layer = r.split("/")[0];
    const deps: string[] = [];
    for (const { spec } of importsOf(file)) {
      const target = resolveImport(file, spec);
      const isInterface = /(^|\/)(routes|[\w-]+-routes|plugin|schemas|views)\.ts$/.test(r);
      const isMcpHandler = r.startsWith("features/mcp/") && !isInterface;
      const isRulesFile = layer === "features" && !isInterface && !isMcpHandler;
      if ((isRulesFile || isMcpHandler) && (spec === "elysia" || spec.startsWith("elysia/") || spec.startsWith("@elysiajs/"))) violations.push(`${r} imports ${spec} (a feature's rules never import the web framework)`);
      if (!target) continue;
      deps.push(target);
      const t = rel(target);
      if (["core", "db", "http", "adapters"].includes(layer) && t.startsWith("features/")) {
        const allowed = (r === "db/schema.ts" && t.endsWith("tables.ts")) || (r === "http/auth.ts" && t === "features/auth/service.ts");
        if (!allowed) violations.push(`${r} imports ${t} (${layer}/ never imports a feature)`);
      }
      if (isRulesFile && t.startsWith("http/")) violations.push(`${r} imports ${t} (a feature's rules never import http/)`);
      if (t.startsWith("features/mcp/") && !r.startsWith("features/mcp/") && r !== "app.ts" && !(r === "db/schema.ts" && t === "features/mcp/tables.ts")) violations.push(`${r} imports ${t} (only app.ts mounts the MCP transport)`);
      // The web interface sits beside the features' routes: it calls their services and views,
      // never their routes, and only app.ts mounts it.
      if (t.startsWith("web/") && layer !== "web" && r !== "app.ts") violations.push(`${r} imports ${t} (only app.ts mounts the web interface)`);
      if (layer === "web" && t.startsWith("features/") && /(^|\/)(routes|[\w-]+-routes|plugin|handlers)\.ts$/.test(t)) violations.push(`${r} imports ${t} (pages call services and views, never routes)`);
    }
    graph.set(file, deps);
  }
  violations.push(...tableViolations(all, rel));

  // Tarjan's strongly connected components: every component of more than one module is a cycle.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(rel(w));
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return { cycles, violations };
}

if (import.meta.main) {
  const { cycles, violations } = checkImports();
  for (const v of violations) console.log(`layer: ${v}`);
  for (const c of cycles) console.log(`cycle (${c.length} modules): ${c.join(" -> ")}`);
  if (cycles.length || violations.length) {
    console.log(`${violations.length} layering violation(s), ${cycles.length} import cycle(s)`);
    process.exit(1);
  }
  console.log("imports: no cycles, layers point one way");
}
