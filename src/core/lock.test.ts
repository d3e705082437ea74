import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { acquireDataLock, DataDirLockedError, describeHolder, LOCK_FILE, lockState } from "./lock";

const root = mkdtempSync(join(tmpdir(), "colony-lock-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDir = () => join(root, `d${++n}`);

describe("data folder lock", () => {
  test("one holder at a time; a second acquire names the first; release lets the next in", () => {
    const dir = freshDir();
    expect(lockState(dir)).toEqual({ held: false });
    const first = acquireDataLock(dir, "serve");
    first.update({ url: "http://127.0.0.1:9999" });
    let refused: unknown;
    try {
      acquireDataLock(dir, "restore");
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(DataDirLockedError);
    const holder = (refused as DataDirLockedError).holder!;
    expect(holder).toMatchObject({ pid: process.pid, command: "serve", url: "http://127.0.0.1:9999" });
    expect((refused as Error).message).toContain(`pid ${process.pid}`);
    expect((refused as Error).message).toContain("http://127.0.0.1:9999");
    const state = lockState(dir);
    expect(state.held).toBe(true);

    first.release();
    first.release(); // idempotent
    expect(lockState(dir)).toEqual({ held: false });
    const second = acquireDataLock(dir, "restore");
    second.release();
  });

  test("a lock file left behind by a dead holder, or naming a live foreign pid, does not block", () => {
    const dir = freshDir();
    acquireDataLock(dir, "serve").release();
    // PID 1 is always alive: a pid file would have blocked here forever.
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: 1, command: "serve", host: "x", started_at: "then" }));
    expect(lockState(dir)).toEqual({ held: false });
    acquireDataLock(dir, "restore").release();
  });

  test("probing never creates the folder", () => {
    const dir = freshDir();
    expect(lockState(dir)).toEqual({ held: false });
    expect(existsSync(dir)).toBe(false);
  });

  test("held across processes, and dropped by the kernel when the holder is killed", async () => {
    const dir = freshDir();
    const script = `import { acquireDataLock } from ${JSON.stringify(join(import.meta.dir, "lock.ts"))};
      acquireDataLock(process.argv[2], "serve"); console.log("locked"); setInterval(() => {}, 1000);`;
    const file = join(root, "holder.ts");
    writeFileSync(file, script);
    const child = Bun.spawn(["bun", file, dir], { stdout: "pipe", stderr: "inherit" });
    const reader = child.stdout.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toContain("locked");
    expect(() => acquireDataLock(dir, "migrate")).toThrow(`pid ${child.pid}`);
    child.kill("SIGKILL");
    await child.exited;
    const after = acquireDataLock(dir, "migrate");
    after.release();
  });

  test("describes an unnamed holder", () => {
    expect(describeHolder(null)).toBe("another colony process");
  });
});
