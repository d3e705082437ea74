#!/usr/bin/env bun
// Builds dist/colony: one executable holding the Bun runtime, the server, its migrations and
// public/ (both embedded through text imports), and sharp running on WebAssembly.
//
//   bun run build                 build dist/colony for this machine
//   bun run build --outfile PATH  write the executable elsewhere
//   bun run build --target T      cross-compile, e.g. bun-linux-arm64 (see Bun's --target)
//
// Why WebAssembly: a single-file executable cannot dlopen sharp's native addon and libvips
// (they are separate shared libraries on disk). sharp publishes an official WebAssembly build,
// @img/sharp-wasm32, with the same JavaScript API. Package managers skip it on ordinary
// platforms, so this script installs it into .build/ with npm, and a Bun build plugin makes
// the bundle load it instead of the native binding:
//
//   1. sharp's loader (sharp/dist/sharp.mjs), which probes for the native addons, is replaced
//      by a module that embeds the .wasm file (`with { type: "file" }`) and requires the
//      Emscripten glue of @img/sharp-wasm32.
//   2. The glue is patched to read the embedded .wasm file, to start its pthread workers from
//      a copy of itself that is compiled into the executable as a second entry point (libvips
//      and sharp's async work run on worker threads), and to always bridge worker messages
//      from node:worker_threads' parentPort (Bun defines a global postMessage in workers,
//      which makes the unpatched glue skip that bridge and hang).
//   3. sharp's version report is pointed at the WebAssembly package's versions.json, so
//      `sharp.versions` (and `colony doctor`) tell which build is running.
//
// Running from source (`bun src/main.ts`) is untouched and keeps using native sharp.
//
// Start-up: the code is split into chunks, so a command loads
// only the modules it imports (`colony version` does not load the server); JavaScriptCore starts
// with a reluctant JIT (STARTUP_JIT_POLICY), which the server sets back to normal once it listens;
// and the bytecode is laid out by a recorded start: the build runs a first executable through
// `serve` until /health answers, recording which functions it used, then builds again with that
// order, so a start reads its bytecode from fewer pages (less resident memory, a slightly shorter
// start; a cross-compiled executable keeps Bun's order).
import type { BunPlugin } from "bun";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { parseArgs } from "node:util";

const ROOT = resolve(import.meta.dir, "..");
const CACHE = join(ROOT, ".build");

export interface WasmPackage {
  version: string;
  /** Directory of @img/sharp-wasm32 inside the cache. */
  dir: string;
  /** The Emscripten glue (CommonJS), also the pthread worker script. */
  glue: string;
  wasm: string;
  versions: Record<string, string>;
}

function sharpVersion(): string {
  const pkg = join(ROOT, "node_modules", "sharp", "package.json");
  if (!existsSync(pkg)) throw new Error("sharp is not installed; run `bun install` first");
  return JSON.parse(readFileSync(pkg, "utf8")).version;
}

function wasmPackageAt(dir: string, version: string): WasmPackage {
  return {
    version,
    dir,
    glue: join(dir, "lib", `sharp-wasm32-${version}.node.js`),
    wasm: join(dir, "lib", `sharp-wasm32-${version}.node.wasm`),
    versions: existsSync(join(dir, "versions.json")) ? JSON.parse(readFileSync(join(dir, "versions.json"), "utf8")) : {},
  };
}

function complete(prefix: string, version: string): boolean {
  const pkg = wasmPackageAt(join(prefix, "node_modules", "@img", "sharp-wasm32"), version);
  return existsSync(pkg.glue) && existsSync(pkg.wasm) && existsSync(join(prefix, "node_modules", "@emnapi", "runtime", "package.json"));
}

/**
 * Returns @img/sharp-wasm32 at exactly the installed sharp's version, installing it (with its
 * dependency @emnapi/runtime) into .build/sharp-wasm32-<version>/ on first use. npm checks the
 * registry's integrity hashes; later builds reuse the cache and need no network.
 */
export function ensureSharpWasm(log: (msg: string) => void = console.log): WasmPackage {
  const version = sharpVersion();
  const prefix = join(CACHE, `sharp-wasm32-${version}`);
  if (!complete(prefix, version)) {
    const npm = spawnSync("npm", ["--version"], { encoding: "utf8" });
    if (npm.status !== 0) {
      throw new Error(`npm is needed once to fetch @img/sharp-wasm32@${version} (install Node.js/npm, or place the package under ${relative(ROOT, prefix)}/node_modules)`);
    }
    log(`fetching @img/sharp-wasm32@${version} into ${relative(ROOT, prefix)}/`);
    // Install into a scratch directory and rename it into place, so an interrupted or
    // concurrent build never leaves a half-filled cache behind.
    const scratch = `${prefix}.tmp-${process.pid}`;
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch, { recursive: true });
    const res = spawnSync(
      "npm",
      [
        "install",
        `@img/sharp-wasm32@${version}`,
        "--prefix", scratch,
        "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--ignore-scripts",
        "--loglevel=error",
        // sharp 0.33 and 0.34 published this package with cpu "wasm32", which npm refuses to
        // install on any real CPU unless forced.
        "--force",
      ],
      { stdio: ["ignore", "inherit", "inherit"], cwd: scratch },
    );
    if (res.status !== 0 || !complete(scratch, version)) {
      rmSync(scratch, { recursive: true, force: true });
      throw new Error(`npm install @img/sharp-wasm32@${version} failed${res.error ? `: ${res.error.message}` : ""}`);
    }
    if (complete(prefix, version)) rmSync(scratch, { recursive: true, force: true });
    else {
      rmSync(prefix, { recursive: true, force: true });
      renameSync(scratch, prefix);
    }
  }
  return wasmPackageAt(join(prefix, "node_modules", "@img", "sharp-wasm32"), version);
}

/** Replaces `find` in `source` exactly once, or fails the build: sharp changed under us. */
function patch(source: string, find: string, replacement: string, file: string): string {
  const at = source.indexOf(find);
  if (at < 0 || source.indexOf(find, at + find.length) >= 0) {
    throw new Error(`sharp-wasm plugin: expected exactly one ${JSON.stringify(find)} in ${file}; update scripts/build.ts for this sharp version`);
  }
  return source.slice(0, at) + replacement + source.slice(at + find.length);
}

const posix = (p: string) => p.split(sep).join("/");
const escapeRegExp = (p: string) => p.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * The Bun build plugin that makes the bundle use @img/sharp-wasm32. `bundleRoot` is the build's
 * root directory: entry points keep their path relative to it inside the executable.
 */
export function sharpWasmPlugin(wasm: WasmPackage, bundleRoot: string): BunPlugin {
  const workerPath = posix(relative(bundleRoot, wasm.glue));
  return {
    name: "sharp-wasm32",
    setup(build) {
      // 1. sharp's loader: skip the native probes and load the WebAssembly binding.
      build.onLoad({ filter: /[\\/]sharp[\\/]dist[\\/]sharp\.mjs$/ }, () => ({
        loader: "js",
        contents: [
          `// Generated by scripts/build.ts: sharp's WebAssembly binding, embedded in the executable.`,
          `import { dirname, join } from "node:path";`,
          `import wasmPath from ${JSON.stringify(wasm.wasm)} with { type: "file" };`,
          // Entry points sit at their path relative to the build root, next to the main one.
          `globalThis.__colonySharpWasm32 = { wasmPath, workerPath: join(dirname(Bun.main), ${JSON.stringify(workerPath)}) };`,
          `const binding = require(${JSON.stringify(wasm.glue)});`,
          `export default binding;`,
        ].join("\n"),
      }));

      // 2. The Emscripten glue: read the embedded .wasm, spawn workers from the embedded copy.
      build.onLoad({ filter: new RegExp(`${escapeRegExp(posix(wasm.glue))}$`) }, ({ path }) => {
        let src = readFileSync(path, "utf8");
        src = patch(
          src,
          `var Module=typeof Module!="undefined"?Module:{};`,
          `var __embedded=globalThis.__colonySharpWasm32;var Module={locateFile:(p,dir)=>__embedded&&p.endsWith(".wasm")?__embedded.wasmPath:dir+p};`,
          path,
        );
        src = patch(
          src,
          `if(typeof __filename!="undefined"){_scriptName=__filename}`,
          `if(__embedded){_scriptName=__embedded.workerPath}else if(typeof __filename!="undefined"){_scriptName=__filename}`,
          path,
        );
        // Inside a worker, Emscripten bridges node:worker_threads' parentPort to the web-style
        // globals only when `postMessage` is missing. Bun defines a global postMessage in
        // node:worker_threads workers too, but parent messages arrive on parentPort only, so
        // without the bridge the pthread workers never hear from the main thread (and sharp's
        // first pipeline waits forever). Always install it.
        src = patch(src, `if(!globalThis.postMessage){parentPort.on("message"`, `if(true){parentPort.on("message"`, path);
        return { loader: "js", contents: src };
      });

      // 3. sharp.versions: sharp requires the versions file at run time through createRequire,
      //    which the bundler cannot follow; inline it.
      build.onLoad({ filter: /[\\/]sharp[\\/]dist[\\/]utility\.mjs$/ }, ({ path }) => ({
        loader: "js",
        contents: patch(readFileSync(path, "utf8"), `require('@img/sharp-wasm32/versions')`, JSON.stringify(wasm.versions), path),
      }));
    },
  };
}

export interface BuildResult {
  outfile: string;
  bytes: number;
  ms: number;
  /** Whether the bytecode is laid out by a recorded start (not when cross-compiling, or when recording failed). */
  ordered: boolean;
}

/**
 * JavaScriptCore's tier-up thresholds are multiplied by this while the executable starts: module
 * evaluation and route registration run once, and compiling them costs more than interpreting
 * them (10 starts fastest of the factors tried: lower ones compile more, higher ones leave hot
 * code interpreted). The
 * server and its workers set the normal policy back once they are running (src/db/workers.ts).
 */
export const STARTUP_JIT_POLICY = 10;

async function compileOnce(wasm: WasmPackage, outfile: string, target: string | undefined, bytecodeOrder: string | null) {
  const result = await Bun.build({
    // The glue is a second entry point so that it exists as its own script inside the
    // executable, for Emscripten's pthread workers to start from.
    // The WAL checkpointer's, the read pool's, the scheduled backups' and the vault index's
    // workers are entry points too, so their scripts exist inside it.
    entrypoints: [
      join(ROOT, "src", "main.ts"),
      join(ROOT, "src", "db", "checkpoint-worker.ts"),
      join(ROOT, "src", "db", "read-worker.ts"),
      join(ROOT, "src", "ops", "backup-worker.ts"),
      join(ROOT, "src", "features", "vault", "index-worker.ts"),
      wasm.glue,
    ],
    root: ROOT,
    compile: {
      outfile,
      ...(target ? { target: target as Bun.Build.CompileTarget } : {}),
      // The server is configured by its environment and flags only; never by a bunfig.toml
      // that happens to sit in the working directory.
      autoloadBunfig: false,
      jitPolicy: STARTUP_JIT_POLICY,
      bytecodeOrder,
    },
    // Whitespace and syntax only: Elysia compiles handlers from their source at run time.
    // (Minifying identifiers as well saves little size and no start-up time.)
    minify: { whitespace: true, syntax: true, identifiers: false },
    // The source map is embedded (compressed) for readable stack traces; Bun also writes a
    // copy next to the executable, removed below so that dist/ holds one file.
    sourcemap: "linked",
    // Parse at build time rather than at every start. ESM keeps top-level await available.
    bytecode: true,
    format: "esm",
    // Chunks shared by the entry points and by dynamic imports: a command evaluates only what it
    // imports (the CLI imports every command's module lazily).
    splitting: true,
    plugins: [sharpWasmPlugin(wasm, ROOT)],
  });
  if (!result.success) {
    for (const message of result.logs) console.error(message);
    throw new Error("build failed");
  }
  for (const output of result.outputs) if (output.kind === "sourcemap") rmSync(output.path, { force: true });
}

/**
 * Runs `executable serve` on an empty temporary data folder until GET /health answers, then
 * stops it, with BUN_BYTECODE_ORDER_OUT set: Bun writes the functions the start used to `orderFile`.
 * One process: a worker of several starts the same way, and the processes would all write the file.
 */
async function recordStart(executable: string, orderFile: string): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "colony-build-order-"));
  rmSync(orderFile, { force: true });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("COLONY_")) env[k] = v;
  const proc = Bun.spawn([executable, "serve"], {
    env: { ...env, BUN_BYTECODE_ORDER_OUT: orderFile, COLONY_DATA_DIR: dataDir, COLONY_HOST: "127.0.0.1", COLONY_PORT: "0", COLONY_LOG_LEVEL: "info", COLONY_ACCESS_LOG: "0", COLONY_WORKERS: "1" },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  try {
    let text = "";
    const decoder = new TextDecoder();
    const deadline = setTimeout(() => proc.kill("SIGKILL"), 30_000);
    // stderr is read to its end (a pipe closed early would fail the executable's later log lines).
    let listening: (url: string | undefined) => void = () => {};
    const started = new Promise<string | undefined>((resolve) => (listening = resolve));
    const drained = (async () => {
      for await (const chunk of proc.stderr) {
        text += decoder.decode(chunk, { stream: true });
        const found = /"msg":"colony listening","url":"([^"]+)"/.exec(text)?.[1];
        if (found) listening(found);
      }
      listening(undefined);
    })();
    const url = await started;
    clearTimeout(deadline);
    if (!url) throw new Error(`the executable did not start:\n${text}`);
    const health = await fetch(`${url}/health`);
    if (health.status !== 200) throw new Error(`GET /health answered ${health.status}`);
    await health.arrayBuffer();
    proc.kill("SIGTERM");
    if ((await proc.exited) !== 0) throw new Error(`the executable exited with ${proc.exitCode}:\n${(await drained, text).slice(-2000)}`);
    if (!existsSync(orderFile)) throw new Error("no bytecode order was written");
  } finally {
    proc.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function build(opts: { outfile?: string; target?: string; log?: (msg: string) => void } = {}): Promise<BuildResult> {
  const log = opts.log ?? console.log;
  const started = performance.now();
  const wasm = ensureSharpWasm(log);
  const outfile = resolve(ROOT, opts.outfile ?? "dist/colony");
  mkdirSync(dirname(outfile), { recursive: true });
  // A cross-compiled executable cannot run here to record its start: it keeps Bun's layout.
  const native = !opts.target || opts.target === `bun-${process.platform}-${process.arch}`;
  let orderFile: string | null = null;
  if (native) {
    const first = join(CACHE, "colony-record");
    await compileOnce(wasm, first, opts.target, null);
    try {
      await recordStart(first, join(CACHE, "bytecode-order.txt"));
      orderFile = join(CACHE, "bytecode-order.txt");
    } catch (err) {
      // Only the layout depends on it: build on, in Bun's own order.
      log(`build: recording a start failed (${err instanceof Error ? err.message : String(err)}); the bytecode keeps Bun's own order`);
    } finally {
      rmSync(first, { force: true });
    }
  }
  await compileOnce(wasm, outfile, opts.target, orderFile);
  return { outfile, bytes: statSync(outfile).size, ms: Math.round(performance.now() - started), ordered: orderFile !== null };
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Bun.argv.slice(2), options: { outfile: { type: "string" }, target: { type: "string" } } });
  try {
    const out = await build({ outfile: values.outfile, target: values.target });
    console.log(`built ${relative(process.cwd(), out.outfile) || out.outfile} (${(out.bytes / 1024 / 1024).toFixed(1)} MiB) in ${(out.ms / 1000).toFixed(1)}s${out.ordered ? ", bytecode laid out by a recorded start" : ""}`);
  } catch (err) {
    console.error(`build: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
