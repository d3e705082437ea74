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
//     nothing but app.ts imports it.
//   - web/ (the pages for people) sits beside the features' routes: it may import features'
//     services and views, core/, db/ and http/, but no feature's routes; nothing but app.ts and
//     web/ itself imports it.
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

const transpiler = new Bun.Transpiler({ loader: "ts" });

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
  const specs = new Set(transpiler.scanImports(source).map((i) => i.path));
  for (const m of source.matchAll(/^\s*(?:import|export)\s+type\s[^;]*?from\s+["']([^"']+)["']/gm)) specs.add(m[1]);
  for (const m of source.matchAll(/^\s*import\s*\{[^}]*\}\s*from\s+["']([^"']+)["']/gm)) specs.add(m[1]);
  return [...specs].map((spec) => ({ spec }));
}

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
      if (t.startsWith("features/mcp/") && !r.startsWith("features/mcp/") && r !== "app.ts") violations.push(`${r} imports ${t} (only app.ts mounts the MCP transport)`);
      if (t.startsWith("web/") && layer !== "web" && r !== "app.ts") violations.push(`${r} imports ${t} (only app.ts mounts the web pages)`);
      if (layer === "web" && t.startsWith("features/") && /(^|\/)(routes|[\w-]+-routes|plugin)\.ts$/.test(t)) violations.push(`${r} imports ${t} (the web pages call features' services, not their routes)`);
    }
    graph.set(file, deps);
  }

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
