// Spec coverage: which operations of the specification's operations.tsv the app serves.
//
//   bun scripts/spec-coverage.ts [--summary] [--ops <operations.tsv>] [--part part1]
//
// Reads the operation list (default ../shared/spec/operations.tsv, or COLONY_SPEC_OPERATIONS),
// builds the app on an in-memory database, walks its registered routes, and prints
// implemented/total per part plus the missing operations. --summary prints three short lines.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createApp } from "../src/app";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config";
import { TestClock } from "../src/core/clock";
import { createContext } from "../src/core/context";

export interface Operation {
  method: string;
  path: string;
  part: string;
  section: string;
}

export function readOperations(file: string): Operation[] {
  const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.trim());
  const [header, ...rows] = lines;
  const cols = header.split("\t");
  const at = (name: string) => cols.indexOf(name);
  return rows.map((r) => {
    const f = r.split("\t");
    return { method: f[at("method")].toUpperCase(), path: f[at("path")], part: f[at("part")], section: f[at("section")] };
  });
}

/** `/users/{user_id}` and `/users/:id` both become `/users/{}`. */
export const normalisePath = (p: string) =>
  p.replace(/\{[^}]+\}/g, "{}").replace(/:[A-Za-z_][A-Za-z0-9_]*/g, "{}").replace(/\/+$/, "") || "/";

export function servedKeys(routes: { method: string; path: string }[]): { exact: Set<string>; prefixes: { method: string; prefix: string }[] } {
  const exact = new Set<string>();
  const prefixes: { method: string; prefix: string }[] = [];
  for (const r of routes) {
    const method = r.method.toUpperCase();
    if (r.path.endsWith("/*")) {
      // A catch-all serves what lies under it (vault file names with slashes), never a bare "/*".
      const prefix = normalisePath(r.path.slice(0, -2));
      if (prefix !== "/") prefixes.push({ method, prefix });
      continue;
    }
    exact.add(`${method} ${normalisePath(r.path)}`);
  }
  return { exact, prefixes };
}

export function isServed(op: Operation, served: ReturnType<typeof servedKeys>): boolean {
  const path = normalisePath(op.path);
  const methods = op.method === "GET" ? ["GET", "ALL"] : [op.method, "ALL"];
  for (const m of methods) {
    if (served.exact.has(`${m} ${path}`)) return true;
    if (served.prefixes.some((p) => p.method === m && path.startsWith(p.prefix + "/"))) return true;
  }
  return false;
}

function main() {
  const { values: flags } = parseArgs({ args: process.argv.slice(2), options: { ops: { type: "string" }, part: { type: "string" }, summary: { type: "boolean" } } });
  const file = resolve(flags.ops ?? process.env.COLONY_SPEC_OPERATIONS ?? join(import.meta.dir, "..", "..", "shared", "spec", "operations.tsv"));
  if (!existsSync(file)) {
    console.error(`spec-coverage: ${file} not found (pass --ops <operations.tsv>)`);
    process.exit(2);
  }
  const ops = readOperations(file).filter((o) => !flags.part || o.part === flags.part);
  const ctx = createContext({ config: { ...loadConfig({ COLONY_LOG_LEVEL: "silent" }), logLevel: "silent" }, clock: new TestClock(), dbPath: ":memory:" });
  const app = createApp(ctx);
  const served = servedKeys(app.routes.map((r: { method: string; path: string }) => ({ method: r.method, path: r.path })));

  const parts = [...new Set(ops.map((o) => o.part))].sort();
  const missing: Operation[] = [];
  const lines: string[] = [];
  let servedTotal = 0;
  for (const part of parts) {
    const mine = ops.filter((o) => o.part === part);
    const ok = mine.filter((o) => isServed(o, served));
    servedTotal += ok.length;
    missing.push(...mine.filter((o) => !isServed(o, served)));
    lines.push(`${part}: ${ok.length}/${mine.length} operations served (${Math.round((ok.length / mine.length) * 100)}%)`);
  }

  if (flags.summary) {
    // Three short lines: one per part of the specification.
    for (const l of lines) console.log(l);
    return;
  }
  console.log(`Spec coverage (${file})`);
  for (const l of lines) console.log(`  ${l}`);
  console.log(`  total: ${servedTotal}/${ops.length}`);
  if (missing.length) {
    console.log(`\nMissing operations (${missing.length}):`);
    let section = "";
    for (const o of missing) {
      const s = `${o.part} ${o.section}`;
      if (s !== section) console.log(`\n  ${(section = s)}`);
      console.log(`    ${o.method.padEnd(7)} ${o.path}`);
    }
  }
}

if (import.meta.main) main();
