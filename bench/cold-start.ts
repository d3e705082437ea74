#!/usr/bin/env bun
// Cold start of `colony serve`: the time from spawning the process until the first
// `GET /health` answers 200, polled every POLL_MS (1) milliseconds; then the server is stopped
// with SIGTERM and waited for. Also `colony version` (spawn until exit).
//
//   bun bench/cold-start.ts                       # dist/colony, 20 runs of each case
//   SOURCE=1 bun bench/cold-start.ts              # `bun src/main.ts` instead of the binary
//   RUNS=50 CASES=migrated bun bench/cold-start.ts
//   BINARY=/tmp/other/colony bun bench/cold-start.ts
//   BINARY=dist/colony,/tmp/before/colony bun bench/cold-start.ts   # A/B, runs interleaved
//   BINARY=dist/colony,source bun bench/cold-start.ts               # the executable and the source
//   WORKERS=2 bun bench/cold-start.ts             # a supervisor and two workers (default: 1 process)
//
// Cases (CASES, comma-separated; all three by default):
//   migrated  one data folder, migrated and given its secrets by a first start that is not
//             counted, reused by every run (each run ends with a clean shutdown)
//   fresh     a new empty data folder per run: creates the database, runs every migration,
//             generates the secrets
//   version   `colony version`: the command line alone, no app
//
// Prints one markdown table per executable (median, p90, min, max in ms) and, with TSV=<file>,
// appends one line per executable and case (target, case, runs, median, p90, min, max) for
// bench/all.sh. Listens on 127.0.0.1:PORT (18095) only. Runs alternate between the executables
// and the cases, so a slow minute of a shared host touches all of them alike.
import { mkdtempSync, rmSync, appendFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const env = process.env;
const RUNS = Number(env.RUNS ?? 20);
const PORT = Number(env.PORT ?? 18095);
const POLL_MS = Number(env.POLL_MS ?? 1);
const TIMEOUT_MS = Number(env.TIMEOUT_MS ?? 30_000);
const CASES = (env.CASES ?? "migrated,fresh,version").split(",").map((s) => s.trim()).filter(Boolean);
const SOURCE = env.SOURCE === "1";
const HEALTH = `http://127.0.0.1:${PORT}/health`;
// COLONY_WORKERS of the server (its own default is the number of cores): one process unless set.
const WORKERS = env.WORKERS ?? env.COLONY_WORKERS ?? "1";
const workersNote = WORKERS === "1" ? "" : `, ${WORKERS} workers`;

interface Target {
  label: string;
  command: string[];
}
const SOURCE_TARGET: Target = { label: `bun src/main.ts${workersNote}`, command: [process.execPath, join(ROOT, "src/main.ts")] };
const TARGETS: Target[] = SOURCE
  ? [SOURCE_TARGET]
  : (env.BINARY ?? "dist/colony").split(",").map((b) => {
      if (b.trim() === "source") return SOURCE_TARGET;
      const path = resolve(ROOT, b.trim());
      if (!existsSync(path)) {
        console.error(`${path} does not exist: run \`bun run build\` first, or SOURCE=1`);
        process.exit(1);
      }
      return { label: `${path.startsWith(`${ROOT}/`) ? path.slice(ROOT.length + 1) : path}${workersNote}`, command: [path] };
    });

function serverEnv(dataDir: string): Record<string, string> {
  return {
    ...(env as Record<string, string>),
    COLONY_DATA_DIR: dataDir,
    COLONY_HOST: "127.0.0.1",
    COLONY_PORT: String(PORT),
    COLONY_LOG_LEVEL: env.COLONY_LOG_LEVEL ?? "warn",
    COLONY_WORKERS: WORKERS,
  };
}

async function portFree(): Promise<boolean> {
  try {
    await fetch(HEALTH, { signal: AbortSignal.timeout(500) });
    return false;
  } catch {
    return true;
  }
}

/** Spawns `serve` on dataDir; resolves to ms from spawn to the first 200 from /health. */
async function startOnce(command: string[], dataDir: string): Promise<number> {
  const t0 = performance.now();
  const proc = Bun.spawn([...command, "serve"], { env: serverEnv(dataDir), stdout: "ignore", stderr: "pipe" });
  let exited = false;
  proc.exited.then(() => (exited = true));
  try {
    for (;;) {
      try {
        const res = await fetch(HEALTH, { keepalive: false });
        if (res.status === 200) {
          const ms = performance.now() - t0;
          await res.arrayBuffer();
          return ms;
        }
        await res.arrayBuffer();
      } catch {
        // not listening yet
      }
      if (exited) throw new Error(`colony exited during start-up (status ${proc.exitCode}): ${await new Response(proc.stderr).text()}`);
      if (performance.now() - t0 > TIMEOUT_MS) throw new Error(`no 200 from ${HEALTH} within ${TIMEOUT_MS} ms`);
      await Bun.sleep(POLL_MS);
    }
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}

async function versionOnce(command: string[]): Promise<number> {
  const t0 = performance.now();
  const proc = Bun.spawn([...command, "version"], { stdout: "pipe", stderr: "inherit" });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const ms = performance.now() - t0;
  if (proc.exitCode !== 0 || !out.trim()) throw new Error(`colony version failed (status ${proc.exitCode})`);
  return ms;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];

async function main() {
  if (!(await portFree())) {
    console.error(`something already answers on 127.0.0.1:${PORT} (set PORT)`);
    process.exit(1);
  }
  const scratch = mkdtempSync(join(tmpdir(), "colony-cold-"));
  // One migrated folder per executable: a build may carry migrations another does not know.
  const migratedDir = (t: number) => join(scratch, `migrated-${t}`);
  const times = TARGETS.map(() => Object.fromEntries(CASES.map((c) => [c, [] as number[]])));
  try {
    for (let t = 0; t < TARGETS.length; t++) {
      if (CASES.includes("migrated")) await startOnce(TARGETS[t].command, migratedDir(t)); // migrate, make the secrets: not counted
      // One warm-up of each case (page cache, the executable's pages), not counted.
      for (const c of CASES) await runCase(TARGETS[t].command, c, scratch, migratedDir(t), -1);
    }
    for (let i = 0; i < RUNS; i++) {
      for (let t = 0; t < TARGETS.length; t++) for (const c of CASES) times[t][c].push(await runCase(TARGETS[t].command, c, scratch, migratedDir(t), i));
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  for (let t = 0; t < TARGETS.length; t++) {
    if (t) console.log();
    console.log(`| ${TARGETS[t].label} | runs | median | p90 | min | max |`);
    console.log(`| --- | ---: | ---: | ---: | ---: | ---: |`);
    for (const c of CASES) {
      const s = [...times[t][c]].sort((a, b) => a - b);
      const row = [s.length, quantile(s, 0.5), quantile(s, 0.9), s[0], s[s.length - 1]];
      const label = c === "version" ? "`version` (spawn to exit)" : `serve, ${c} data folder (spawn to /health 200)`;
      console.log(`| ${label} | ${row[0]} | ${row.slice(1).map((v) => `${v.toFixed(1)} ms`).join(" | ")} |`);
      if (env.TSV) appendFileSync(env.TSV, [TARGETS[t].label, c, ...row.map((v) => (Number.isInteger(v) ? String(v) : v.toFixed(1)))].join("\t") + "\n");
    }
  }
}

async function runCase(command: string[], c: string, scratch: string, migratedDir: string, i: number): Promise<number> {
  if (c === "migrated") return startOnce(command, migratedDir);
  if (c === "version") return versionOnce(command);
  if (c === "fresh") {
    const dir = join(scratch, `fresh-${i}`);
    try {
      return await startOnce(command, dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  throw new Error(`unknown case ${c} (migrated, fresh, version)`);
}

await main();
