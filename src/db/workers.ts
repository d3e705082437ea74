// Worker threads of the server (the WAL checkpointer, the read pool, scheduled backups): where
// their scripts are.
import { dirname, join } from "node:path";

/** Whether this is the compiled executable (its modules live in Bun's embedded file system). */
export const compiled = (): boolean => Bun.main.startsWith("/$bunfs/") || Bun.main.startsWith("B:/~BUN/");

/**
 * The script of worker `name` (a module of src/<folder>, src/db by default): beside its sources
 * when running from source; inside a compiled executable, the copy built as its own entry point
 * (scripts/build.ts), under the bundle root.
 */
export function workerScript(name: string, folder = "db"): string {
  if (compiled()) return join(dirname(Bun.main), "src", folder, `${name}.js`);
  return new URL(`../${folder}/${name}.ts`, import.meta.url).href;
}

/**
 * Asks a worker of ours to stop (it closes its connection and answers "stopped"), then ends the
 * thread; after `graceMs` without an answer, ends it anyway.
 */
export function stopWorker(worker: Worker, graceMs = 1000): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      worker.terminate();
      resolve();
    };
    worker.addEventListener("message", (e) => e.data === "stopped" && done());
    worker.postMessage("stop");
    setTimeout(done, graceMs);
  });
}

/**
 * Gives this thread JavaScriptCore's normal JIT policy. The executable starts with a reluctant JIT
 * (STARTUP_JIT_POLICY in scripts/build.ts), so that code which runs once while it starts is
 * interpreted rather than compiled; the server calls this once it listens and each worker thread
 * when it starts, so that request handling gets the usual tiers. Run from source, the policy is
 * already the normal one.
 */
export function normalJitPolicy(): void {
  Bun.unsafe.setJITPolicy(1);
}

/** What a thread gives back when a burst of work is over (core/reclaim.ts): its caches, or its caches and its compiled code. */
export type ReleaseLevel = "caches" | "code";

/**
 * Inside a worker thread: gives back what a burst of work left (core/reclaim.ts): the thread's heap
 * (and at "code" its compiled code), and the cache pages its SQLite connection holds but is not
 * using; then answers "released".
 */
export function releaseThread(level: ReleaseLevel, db: { run(sql: string): unknown } | null | undefined): void {
  if (level === "code") Bun.shrink();
  else Bun.gc(true);
  db?.run("PRAGMA shrink_memory");
  postMessage("released");
}
